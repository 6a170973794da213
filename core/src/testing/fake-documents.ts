import type { PdfSettings } from "../contracts/capture-settings.js";
import { lengthToPx } from "../options/parse.js";
import type { FakeContent } from "./fake-content.js";

/** A CSS length of the printer's settings in PDF points (1 CSS px = 0.75 pt); `fallback` px when unreadable. */
function points(length: string, fallback: number): number {
  const px = length.trim() === "0" ? 0 : lengthToPx(length);
  return (Number.isFinite(px) ? px : fallback) * 0.75;
}

/** Text as a PDF literal string: Latin-1, with `\`, `(` and `)` escaped; other characters become `?`. */
function pdfString(text: string): string {
  const latin1 = [...text].map((c) => (c.charCodeAt(0) < 256 ? c : "?")).join("");
  return `(${latin1.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * A real one-page PDF of the page, as `pdf(settings)` hands back: the paper size, orientation and
 * margins of `settings`, the page's background (with `printBackground`) and its text in Helvetica,
 * one block per line from the top-left margin. What pdfinfo, pdftotext and pdftocairo read.
 */
export function fakePdf(content: FakeContent, settings: PdfSettings, background: readonly number[]): Buffer {
  let width = points(settings.width, 816);
  let height = points(settings.height, 1056);
  if (settings.landscape) [width, height] = [height, width];
  const left = points(settings.margin.left, 0);
  const top = points(settings.margin.top, 0);
  const size = 12 * (settings.scale || 1);
  const ops: string[] = [];
  if (settings.printBackground) {
    const [r, g, b] = background.map((c) => (c / 255).toFixed(3));
    ops.push(`${r} ${g} ${b} rg 0 0 ${width} ${height} re f`);
  }
  ops.push("0 0 0 rg BT", `/F1 ${size} Tf`, `${left + 8} ${height - top - size - 8} Td`, `${size * 1.4} TL`);
  for (const line of content.lines) ops.push(`${pdfString(line)} Tj T*`);
  ops.push("ET");
  const stream = ops.join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    `<< /Title ${pdfString(content.title)} /Producer (renderkit fake engine) >>`,
  ];
  let pdf = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf, "latin1"));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, "latin1");
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1");
}

/** Quoted-printable (RFC 2045) of UTF-8 text, lines soft-wrapped at 76 characters. */
function quotedPrintable(text: string): string {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    let encoded = "";
    for (const byte of Buffer.from(line, "utf8")) {
      const printable = (byte >= 33 && byte <= 126 && byte !== 61) || byte === 32;
      encoded += printable ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
    if (encoded.endsWith(" ")) encoded = `${encoded.slice(0, -1)}=20`;
    let rest = encoded;
    while (rest.length > 76) {
      // Never split an `=XX` escape.
      let cut = 75;
      const lastEscape = rest.lastIndexOf("=", cut);
      if (lastEscape > cut - 3) cut = lastEscape;
      out.push(`${rest.slice(0, cut)}=`);
      rest = rest.slice(cut);
    }
    out.push(rest);
  }
  return out.join("\r\n");
}

const BOUNDARY = "----MultipartBoundary--renderkit-fake----";

/** An MHTML snapshot (RFC 2557) of the page, as `snapshot()` hands back: the HTML as its one part. */
export function fakeMhtml(content: FakeContent, url: string): string {
  return [
    "From: <Saved by the renderkit fake engine>",
    `Snapshot-Content-Location: ${url}`,
    `Subject: ${content.title.replace(/[^\x20-\x7e]/g, "?")}`,
    "MIME-Version: 1.0",
    "Content-Type: multipart/related;",
    '\ttype="text/html";',
    `\tboundary="${BOUNDARY}"`,
    "",
    "",
    `--${BOUNDARY}`,
    "Content-Type: text/html",
    "Content-ID: <frame-renderkit-fake@mhtml.blink>",
    "Content-Transfer-Encoding: quoted-printable",
    `Content-Location: ${url}`,
    "",
    quotedPrintable(content.html),
    "",
    `--${BOUNDARY}--`,
    "",
  ].join("\r\n");
}
