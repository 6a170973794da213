import { type PageSession, type PdfSettings, raceSignal } from "@renderkit/core";
import type { CaptureArea } from "./capture-area.js";
import { pdfToSvg } from "./pdftocairo.js";
import { pdfSvgToArea } from "./svg-root.js";

/** Only page 1 is kept: nothing may be pushed off it, and forced breaks would cut the capture. */
const NO_BREAKS =
  "*,*::before,*::after{break-before:auto!important;break-after:auto!important;break-inside:auto!important;page-break-before:auto!important;page-break-after:auto!important;page-break-inside:auto!important}";

/**
 * Chromium keeps page sides that are multiples of 8 CSS px (6 pt, 1/12 in) exact. Other sizes are
 * rounded to its device units and laid out on the next whole point: at 1001 px the page was laid
 * out 1001.33 px wide, which re-wrapped text (3.3% of pixels differed from the screenshot, 1.2%
 * with the sizes below).
 */
const ceil8 = (n: number) => Math.ceil(n / 8) * 8;

export interface PdfMethodOptions {
  /** Viewport width: the page is laid out at this width, as on screen. */
  viewportWidth: number;
  viewportHeight: number;
  transparent: boolean;
  pdftocairo: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Chromium prints one tall page laid out exactly as wide as the viewport and reaching down to the
 * bottom of the area (never shorter than the viewport, so `vh` units keep their screen size for
 * captures at the top of the page); `pdftocairo -svg` converts page 1 and the root is rewritten to
 * CSS pixels of the area. Faithful (gradients, shadows, transforms, decorations); text becomes glyph
 * outlines. The page is `ceil8(width)` px wide, printed at scale `ceil8(width) / width`, so that
 * the layout width is the viewport's while the page size stays exact.
 */
export async function svgFromPdf(session: PageSession, area: CaptureArea, options: PdfMethodOptions): Promise<string> {
  await session.addStyle(NO_BREAKS);
  const pageWidth = ceil8(options.viewportWidth);
  const printScale = pageWidth / options.viewportWidth;
  const settings: PdfSettings = {
    width: `${pageWidth}px`,
    height: `${ceil8(Math.max(options.viewportHeight, area.y + area.height) * printScale)}px`,
    landscape: false,
    margin: { top: "0", right: "0", bottom: "0", left: "0" },
    printBackground: true,
    scale: printScale,
    displayHeaderFooter: false,
    headerTemplate: "<span></span>",
    footerTemplate: "<span></span>",
    pageRanges: "1",
    preferCSSPageSize: false,
  };
  const pdf = await raceSignal(session.pdf(settings), options.signal);
  const svg = await pdfToSvg(pdf, { binary: options.pdftocairo, timeoutMs: options.timeoutMs, signal: options.signal });
  return pdfSvgToArea(svg, area, { printScale, transparent: options.transparent });
}
