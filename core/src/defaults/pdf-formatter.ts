import type { PdfSettings } from "../contracts/capture-settings.js";
import type { FormatContext, FormatOptions, FormatOutput, FormatSpec, Formatter } from "../contracts/formatter.js";
import type { PageSession } from "../contracts/page-session.js";
import { RenderError } from "../errors.js";
import { lengthToPx } from "../options/parse.js";
import { isBlankPdf, type PdfMargins } from "./pdf-blank.js";
import { PAPER_SIZES, PDF_FORMAT_OPTIONS, PDF_RULES } from "./pdf-options.js";

/** The options the pdf format reads: the core's and its own. */
export type PdfOptions = FormatOptions<typeof PDF_FORMAT_OPTIONS>;

const PRESET_MARGINS = { none: "0", default: "1cm", minimum: "0.4cm" } as const;
/** Room a header or footer needs when the request sets no margin for it. */
const TEMPLATE_MARGIN = "1.5cm";

/** Chromium's header/footer templates inherit no styles; these give the catalogue's helper classes. */
function wrapTemplate(template: string): string {
  return `<style>
  .rk-bar { display: flex; align-items: center; gap: 8px; width: 100%; margin: 0 1cm; font-family: sans-serif; font-size: 8pt; color: #333; }
  .rk-bar .text { font-size: 8pt; } .rk-bar .left { text-align: left; } .rk-bar .center { text-align: center; flex: 1; }
  .rk-bar .right { text-align: right; margin-left: auto; } .rk-bar .grow { flex-grow: 1; }
</style><div class="rk-bar">${template}</div>`;
}

function cssLength(value: string | number | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  return typeof value === "number" ? `${value}px` : value;
}

/** Maps the request's PDF options to engine PDF settings. */
export function pdfSettings(options: PdfOptions): PdfSettings {
  let width: string;
  let height: string;
  if (options.pdfPageWidth !== undefined || options.pdfPageHeight !== undefined) {
    width = `${options.pdfPageWidth ?? options.width}px`;
    height = `${options.pdfPageHeight ?? options.height}px`;
  } else {
    // Inches: Chromium rounds millimetres to CSS pixels, which makes Letter 613x793 pt.
    const [w, h] = PAPER_SIZES[options.pdfPageSize];
    width = `${+(w / 25.4).toFixed(4)}in`;
    height = `${+(h / 25.4).toFixed(4)}in`;
  }
  const preset = PRESET_MARGINS[options.pdfMargin];
  const header = options.pdfShowHeader;
  const footer = options.pdfShowFooter;
  return {
    width,
    height,
    landscape: options.pdfOrientation === "landscape",
    margin: {
      top: cssLength(options.pdfMarginTop, header && preset === "0" ? TEMPLATE_MARGIN : preset),
      right: cssLength(options.pdfMarginRight, preset),
      bottom: cssLength(options.pdfMarginBottom, footer && preset === "0" ? TEMPLATE_MARGIN : preset),
      left: cssLength(options.pdfMarginLeft, preset),
    },
    printBackground: options.pdfBackground,
    scale: options.pdfScale,
    displayHeaderFooter: header || footer,
    headerTemplate: header ? wrapTemplate(options.pdfHeader) : "<span></span>",
    footerTemplate: footer ? wrapTemplate(options.pdfFooter) : "<span></span>",
    pageRanges: options.pdfPageRange,
    preferCSSPageSize: false,
    // Chromium builds the outline from the structure tree: an outline needs a tagged PDF.
    tagged: options.pdfTagged ?? options.pdfOutline,
    outline: options.pdfOutline,
  };
}

/** The printer's margins in points (a CSS pixel is 0.75 pt); unreadable ones count as none. */
function marginPoints(settings: PdfSettings): PdfMargins {
  const pt = (length: string) => {
    const px = lengthToPx(length);
    return Number.isFinite(px) ? px * 0.75 : 0;
  };
  const { top, right, bottom, left } = settings.margin;
  return { top: pt(top), right: pt(right), bottom: pt(bottom), left: pt(left) };
}

/** `1-3,5,7-`: pages and ranges as Chromium's printer takes them. */
const PAGE_RANGES = /^\s*\d+\s*(-\s*\d*\s*)?(,\s*\d+\s*(-\s*\d*\s*)?)*$/;

/**
 * Refuses before queueing what the printer would fail on: margins that leave no room on the page
 * and page ranges it cannot read.
 */
export function checkPdfOptions(options: PdfOptions): void {
  const settings = pdfSettings(options);
  // A full-page PDF is one page as wide as the viewport and as tall as the document.
  let width = options.fullPage ? options.width : lengthToPx(settings.width);
  let height = options.fullPage ? Number.POSITIVE_INFINITY : lengthToPx(settings.height);
  if (settings.landscape && !options.fullPage) [width, height] = [height, width];
  const m = settings.margin;
  const across = lengthToPx(m.left) + lengthToPx(m.right);
  const down = lengthToPx(m.top) + lengthToPx(m.bottom);
  const bad = (option: string, why: string) =>
    new RenderError("InvalidOptions", `Option ${option} ${why}`, { details: { option } });
  if (across >= width) {
    throw bad("pdf_margin_left", `and pdf_margin_right leave no room across the ${Math.round(width)} px page`);
  }
  if (down >= height) {
    throw bad("pdf_margin_top", `and pdf_margin_bottom leave no room down the ${Math.round(height)} px page`);
  }
  if (options.pdfPageRange !== undefined && options.pdfPageRange.trim() !== "" && !PAGE_RANGES.test(options.pdfPageRange)) {
    throw bad("pdf_page_range", "must be pages and ranges like 1-3,5");
  }
}

/**
 * The built-in PDF format: Chromium's printer, with paper, margins, header and footer, tagging and
 * outline options. Result extras: `blank: true` when no page of the PDF shows anything (`isBlankPdf`).
 */
export class PdfFormatter implements Formatter<typeof PDF_FORMAT_OPTIONS> {
  readonly name = "@renderkit/core/pdf";
  /** A PDF prints every page of the document: the core pre-scrolls it to its end first. */
  readonly formats: FormatSpec[] = [
    { format: "pdf", contentType: "application/pdf", extension: "pdf", requires: ["pdf"], wholeDocument: true },
  ];
  readonly options = PDF_FORMAT_OPTIONS;
  readonly rules = PDF_RULES;

  pageSettings(options: PdfOptions) {
    return { media: options.media };
  }

  validate(options: PdfOptions): void {
    checkPdfOptions(options);
  }

  async render(session: PageSession, context: FormatContext<typeof PDF_FORMAT_OPTIONS>): Promise<FormatOutput> {
    const settings = pdfSettings(context.options);
    if (context.options.fullPage) {
      // One tall page: the width of the viewport, the height of the document; forced breaks off.
      await session.addStyle(
        "*,*::before,*::after{break-before:auto!important;break-after:auto!important;page-break-before:auto!important;page-break-after:auto!important}",
      );
      const size = await session.documentSize();
      settings.width = `${context.options.width}px`;
      settings.height = `${Math.ceil(size.height * settings.scale) + 1}px`;
      settings.landscape = false;
    }
    const body = await session.pdf(settings);
    // `blank: true` when the printed pages show one colour only (`isBlankPdf`); absent otherwise.
    return isBlankPdf(body, marginPoints(settings)) ? { body, extras: { blank: true } } : { body };
  }
}
