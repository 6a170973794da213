import { PdfDocument } from "./pdf-document.js";
import { type Bounds, pageMarks } from "./pdf-marks.js";
import { asName } from "./pdf-syntax.js";

/** A space: what joins the content streams of one page (they are read as one). */
const JOIN = new Uint8Array([0x20]);

/** Margins of the printed pages in points (what the document is laid out inside). */
export interface PdfMargins {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

const NO_MARGINS: PdfMargins = { top: 0, right: 0, bottom: 0, left: 0 };

/**
 * Whether a PDF shows one colour only: no page has text, an image, a shading, a form or an
 * annotation other than a link, and every fill and stroke is in the colour of the page under it:
 * the white paper, or the page's own background (a fill that covers the area inside `margins`),
 * the same on every page. As for images, what renderkit adds around the page (the margins' white)
 * is not the page's: a page whose only paint is its background colour is blank. Paint that cannot
 * change a pixel (white boxes on white paper: what Chromium prints for backgrounds when
 * `printBackground` is off) does not count.
 *
 * Reads the PDF itself, as Chromium's printer wrote it (`PdfDocument`), stopping at the first page
 * that shows something: for a PDF with text that is the first page's first text. Whatever it
 * cannot read with certainty (another producer's syntax, an unknown operator, a filter other
 * than zlib) answers false: a PDF is never called blank on a guess.
 */
export function isBlankPdf(bytes: Uint8Array, margins: PdfMargins = NO_MARGINS): boolean {
  try {
    const document = PdfDocument.open(bytes);
    const pages = document?.pages();
    if (!document || !pages || pages.length === 0) return false;
    let colour: string | undefined;
    for (const page of pages) {
      if (page.annotations.some((annotation) => asName(annotation.get("Subtype")) !== "Link")) return false;
      const streams = page.contents.map((num) => document.stream(num));
      if (streams.some((stream) => stream === undefined)) return false;
      const content = Buffer.concat((streams as Uint8Array[]).flatMap((stream) => [stream, JOIN]));
      const [x0, y0, x1, y1] = page.box;
      const area: Bounds = [x0 + margins.left, y0 + margins.bottom, x1 - margins.right, y1 - margins.top];
      const marks = pageMarks(content, page.resources, { box: page.box, area }, (value) => document.resolve(value));
      if (marks.marked || (colour !== undefined && marks.colour !== colour)) return false;
      colour = marks.colour;
    }
    return true;
  } catch {
    return false;
  }
}
