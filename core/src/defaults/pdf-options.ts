import type { OptionRule } from "../contracts/option-rule.js";
import { bool, formatOnly, length, num, oneOf, str } from "../options/spec.js";

/** PDF paper sizes (width × height in mm, portrait). */
export const PAPER_SIZES = {
  A0: [841, 1189],
  A1: [594, 841],
  A2: [420, 594],
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
  A6: [105, 148],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
  Tabloid: [279.4, 431.8],
  Ledger: [431.8, 279.4],
} as const;
export type PaperSize = keyof typeof PAPER_SIZES;

/**
 * The options of the built-in pdf format (names and defaults of the option catalogue clients send:
 * docs/compatibility.md#pdf). The other formats refuse them, except those with a default that
 * clients send on every request, which they report as ignored.
 */
const PDF_FORMAT_TABLE = {
  pdfPageSize: oneOf("PDF paper size.", ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Ledger", "Tabloid"], {
    default: "A4",
  }),
  pdfPageWidth: num("PDF page width in CSS pixels (overrides `pdf_page_size`).", { min: 100, max: 4000, integer: true }),
  pdfPageHeight: num("PDF page height in CSS pixels (overrides `pdf_page_size`).", { min: 100, max: 4000, integer: true }),
  pdfOrientation: oneOf("PDF orientation.", ["portrait", "landscape"], { default: "portrait" }),
  pdfMargin: oneOf("PDF margins preset: none (0), default (1 cm), minimum (0.4 cm).", ["none", "default", "minimum"], {
    default: "none",
  }),
  pdfMarginTop: length("Top margin: pixels as a number, or a CSS length (`2cm`, `1in`)."),
  pdfMarginRight: length("Right margin."),
  pdfMarginBottom: length("Bottom margin."),
  pdfMarginLeft: length("Left margin."),
  pdfBackground: bool("Print background colours and images.", { default: true }),
  pdfScale: num("PDF rendering scale.", { min: 0.1, max: 2, default: 1 }),
  pdfPageRange: str("Pages to keep, e.g. `1-3,5`.", { maxLength: 256 }),
  media: oneOf("CSS media type for PDF.", ["print", "screen"], { default: "print" }),
  pdfShowHeader: bool("Show the `pdf_header` template at the top of every page.", { default: false }),
  pdfHeader: str("Header HTML template (classes date, title, url, pageNumber, totalPages).", {
    maxLength: 64 * 1024,
    default: "<div class='date text left'></div><div class='title text center'></div>",
  }),
  pdfShowFooter: bool("Show the `pdf_footer` template at the bottom of every page.", { default: false }),
  pdfFooter: str("Footer HTML template.", {
    maxLength: 64 * 1024,
    default:
      "<div class='url text left grow'></div><div class='text right'><span class='pageNumber'></span>/<span class='totalPages'></span></div>",
  }),

  pdfOutline: bool(
    "Format pdf: add an outline (bookmarks) built from the page's headings (`h1`–`h6`, nested by level), with each entry pointing at its page. Chromium builds it from the structure tree, so the PDF is also tagged (as `pdf_tagged`); with `pdf_tagged: false` it is refused (400).",
    { default: false },
  ),
  pdfTagged: bool(
    "Format pdf: a tagged (accessible) PDF: a structure tree of the page's headings, paragraphs, lists, tables and figures (`/StructTreeRoot`, `/MarkInfo`) for screen readers and reflowing readers. Default: untagged, unless `pdf_outline` is on (which needs it).",
  ),
} as const;

export const PDF_FORMAT_OPTIONS = formatOnly(PDF_FORMAT_TABLE, { formats: ["pdf"], why: "applies to format pdf only" }, [
  "pdfPageSize",
  "pdfOrientation",
  "pdfMargin",
  "pdfBackground",
  "pdfScale",
  "media",
  "pdfHeader",
  "pdfFooter",
]);

/** Combinations of the pdf format's options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const PDF_RULES: readonly OptionRule[] = [
  {
    option: "selector",
    when: (o, format) => format === "pdf" && o.selector !== undefined && o.selector !== "",
    why: "cannot be used with format pdf: a PDF prints the whole document (capture the element as png, or hide the rest with hide_selector)",
  },
  {
    option: "pdfTagged",
    when: (o) => o.pdfOutline === true && o.pdfTagged === false,
    why: "cannot be false with pdf_outline: Chromium builds the outline from the tagged PDF's structure tree",
  },
];
