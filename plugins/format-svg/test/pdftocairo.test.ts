import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RenderError } from "@renderkit/core";
import { expectRenderError } from "@renderkit/core/testing";
import { pdfToSvg } from "@renderkit/format-svg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A one-page PDF (200×100 pt, a filled rectangle), byte offsets computed so poppler reads it without repair. */
function tinyPdf(): Buffer {
  const stream = "1 0 0 rg 10 10 100 50 re f";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

const hasPoppler = spawnSync("pdftocairo", ["-v"]).error === undefined;
let scripts: string;

async function script(name: string, body: string): Promise<string> {
  const path = join(scripts, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Our temporary directories currently on disk. */
async function ours(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith("renderkit-svg-"));
}

beforeAll(async () => {
  scripts = await mkdtemp(join(tmpdir(), "rk-svg-scripts-"));
});
afterAll(async () => {
  await rm(scripts, { recursive: true, force: true });
});

describe("pdfToSvg", () => {
  it.runIf(hasPoppler)("converts page 1 with pdftocairo and removes its temporary directory", async () => {
    const before = await ours();
    const svg = await pdfToSvg(tinyPdf(), { binary: "pdftocairo", timeoutMs: 10_000, signal: new AbortController().signal });
    expect(svg).toMatch(/<svg[^>]*viewBox="0 0 200 100"/);
    expect(svg).toContain("<path");
    expect(await ours()).toEqual(before);
  });

  it("names a missing pdftocairo", async () => {
    const error = await expectRenderError(
      pdfToSvg(tinyPdf(), {
        binary: join(scripts, "no-such-pdftocairo"),
        timeoutMs: 5_000,
        signal: new AbortController().signal,
      }),
      "EngineResponseNotOkError",
    );
    expect(error.message).toMatch(/not found.*poppler-utils/);
  });

  it("reports the end of stderr when pdftocairo fails", async () => {
    const binary = await script(
      "fails.sh",
      `head -c 20000 /dev/zero | tr '\\0' x >&2; echo "Syntax Error: broken page" >&2; exit 3`,
    );
    const error = await expectRenderError(
      pdfToSvg(tinyPdf(), { binary, timeoutMs: 5_000, signal: new AbortController().signal }),
      "EngineResponseNotOkError",
    );
    expect(error.message).toContain("Syntax Error: broken page");
    expect(error.message.length).toBeLessThan(5_000);
  });

  it("kills pdftocairo on abort and on timeout, and removes the directory", async () => {
    // Sleeps past the test's own limit: only the abort and the timeout can end these runs.
    const binary = await script("hangs.sh", "exec sleep 600");
    const before = await ours();
    const controller = new AbortController();
    const reason = new RenderError("RenderTimeoutError", "render cancelled");
    setTimeout(() => controller.abort(reason), 200);
    await expect(pdfToSvg(tinyPdf(), { binary, timeoutMs: 30_000, signal: controller.signal })).rejects.toBe(reason);
    await expectRenderError(
      pdfToSvg(tinyPdf(), { binary, timeoutMs: 300, signal: new AbortController().signal }),
      "RenderTimeoutError",
    );
    expect(await ours()).toEqual(before);
  });
});
