import type { Box } from "@renderkit/core";

export const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";

/** A number as SVG text: at most 6 decimals, no trailing zeros. */
export function num(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}

/** Opening tag of a root `<svg>` whose user unit is one CSS pixel of `size`, with an opaque white ground unless `transparent`. */
export function rootOpen(size: { width: number; height: number }, transparent: boolean): string {
  const w = num(size.width);
  const h = num(size.height);
  const ground = transparent ? "" : `<rect width="${w}" height="${h}" fill="#fff"/>`;
  return `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" version="1.1">${ground}`;
}

/** How Chromium placed CSS pixels on a PDF page: `pt = px * scale + offset`. */
export interface PdfPlacement {
  scale: number;
  offsetX: number;
  offsetY: number;
}

/**
 * Where CSS pixels landed on a page printed at `printScale`. Chromium stores page sizes in its own
 * device units, lays the page out on the next whole number of points and shrinks that to fit,
 * centred (1280×925 px became 960×694.08 pt with 0.749007 pt per px, 0.64 pt from the left). Pages
 * whose sides are multiples of 8 CSS px are exact (fit 1, no offset), which `svgFromPdf` arranges;
 * the fit is computed anyway so that a page Chromium rounds still maps correctly.
 */
export function pdfPlacement(pageWidthPt: number, pageHeightPt: number, printScale = 1): PdfPlacement {
  const layoutW = Math.ceil(pageWidthPt - 1e-6);
  const layoutH = Math.ceil(pageHeightPt - 1e-6);
  const fit = Math.min(1, pageWidthPt / layoutW, pageHeightPt / layoutH);
  return {
    scale: 0.75 * printScale * fit,
    offsetX: (pageWidthPt - layoutW * fit) / 2,
    offsetY: (pageHeightPt - layoutH * fit) / 2,
  };
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

/** Page size in points from pdftocairo's root tag (`viewBox="0 0 960 696"`, else `width="960pt"`). */
export function pageSizePt(rootTag: string): { width: number; height: number } {
  const box = attribute(rootTag, "viewBox")
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (box?.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0) return { width: box[2]!, height: box[3]! };
  const width = Number.parseFloat(attribute(rootTag, "width") ?? "");
  const height = Number.parseFloat(attribute(rootTag, "height") ?? "");
  if (width > 0 && height > 0) return { width, height };
  throw new Error("pdftocairo wrote an SVG without a page size");
}

/**
 * Rewrites pdftocairo's SVG of a page printed at `printScale` (user unit: one point) so that one user unit is one CSS
 * pixel and the view is `area` (document CSS pixels): a new root with `width`, `height` and
 * `viewBox="0 0 w h"`, and everything pdftocairo drew inside one transformed group. Content
 * outside the area stays in the file, clipped by the viewBox.
 */
export function pdfSvgToArea(svg: string, area: Box, options: { printScale: number; transparent: boolean }): string {
  const root = /<svg\b[^>]*>/.exec(svg);
  const end = svg.lastIndexOf("</svg>");
  if (!root || end < root.index) throw new Error("pdftocairo wrote no <svg> element");
  const page = pageSizePt(root[0]);
  const { scale, offsetX, offsetY } = pdfPlacement(page.width, page.height, options.printScale);
  const k = 1 / scale;
  const matrix = [k, 0, 0, k, -offsetX * k - area.x, -offsetY * k - area.y].map(num).join(" ");
  const body = svg.slice(root.index + root[0].length, end);
  return `${svg.slice(0, root.index)}${rootOpen(area, options.transparent)}<g transform="matrix(${matrix})">${body}</g></svg>\n`;
}
