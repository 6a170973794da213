import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RenderResult } from "@renderkit/core";

const run = promisify(execFile);
const pathOf = (result: RenderResult) => fileURLToPath(result.renderUrl);

/** What `pdfinfo` (poppler) reports: page count, the first page's size in points and its paper name. */
export interface PdfInfo {
  pages: number;
  width: number;
  height: number;
  /** poppler's name for the size (`A4`, `letter`), when it recognises one. */
  paper: string | undefined;
}

export async function pdfInfo(result: RenderResult): Promise<PdfInfo> {
  const { stdout } = await run("pdfinfo", [pathOf(result)]);
  const pages = stdout.match(/^Pages:\s+(\d+)/m);
  const size = stdout.match(/^Page size:\s+([\d.]+) x ([\d.]+) pts(?: \((\w+)\))?/m);
  if (!pages?.[1] || !size?.[1] || !size[2]) throw new Error(`unexpected pdfinfo output:\n${stdout}`);
  return { pages: Number(pages[1]), width: Number(size[1]), height: Number(size[2]), paper: size[3] };
}

/** Text of the whole document (`pdftotext -layout`), pages separated by form feeds. */
export async function pdfText(result: RenderResult): Promise<string> {
  const { stdout } = await run("pdftotext", ["-layout", pathOf(result), "-"]);
  return stdout;
}

/** Left and top edge (points) of the first word `word` on page 1 (`pdftotext -bbox`). */
export async function wordPosition(result: RenderResult, word: string): Promise<{ x: number; y: number }> {
  const { stdout } = await run("pdftotext", ["-bbox", "-f", "1", "-l", "1", pathOf(result), "-"]);
  for (const match of stdout.matchAll(/<word xMin="(-?[\d.]+)" yMin="(-?[\d.]+)"[^>]*>([^<]*)<\/word>/g)) {
    if (match[3] === word) return { x: Number(match[1]), y: Number(match[2]) };
  }
  throw new Error(`word "${word}" not found in the PDF`);
}

/** Page 1 rasterised to PNG at `dpi` (`pdftoppm`), to check colours. */
export async function pdfFirstPagePng(result: RenderResult, dpi = 18): Promise<Buffer> {
  const { stdout } = await run("pdftoppm", ["-png", "-r", String(dpi), "-f", "1", "-l", "1", "-singlefile", pathOf(result)], {
    encoding: "buffer",
  });
  return stdout;
}
