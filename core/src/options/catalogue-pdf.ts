import { RenderError } from "../errors.js";
import type { RendererSettings } from "../settings.js";
import { SHAPED_FORMATS } from "./catalogue-image.js";
import type { OptionRule } from "./combinations.js";
import { bool, num } from "./spec.js";

/** Bounds of `ttl` in seconds (options-catalogue.md): one minute to 30 days. */
export const TTL_BOUNDS = { min: 60, max: 2_592_000 } as const;

/** More PDF and capture options (issue 11 follow-up): pdf_outline, pdf_tagged, disable_ligatures, ttl, max_section_height. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const PDF_OPTIONS = {
  pdfOutline: bool(
    "Format pdf: add an outline (bookmarks) built from the page's headings (`h1`–`h6`, nested by level), with each entry pointing at its page. Chromium builds it from the structure tree, so the PDF is also tagged (as `pdf_tagged`); with `pdf_tagged: false` it is refused (400).",
    { default: false },
  ),
  pdfTagged: bool(
    "Format pdf: a tagged (accessible) PDF: a structure tree of the page's headings, paragraphs, lists, tables and figures (`/StructTreeRoot`, `/MarkInfo`) for screen readers and reflowing readers. Default: untagged, unless `pdf_outline` is on (which needs it).",
  ),
  disableLigatures: bool(
    "Turn off font ligatures (`font-variant-ligatures: none !important` on every element of the main frame), so `fi`, `fl`, `ffi` are drawn and extracted from PDFs as separate letters instead of one ligature glyph (U+FB01...). Every format that draws the page (images, pdf, svg, video); `html` and `mhtml` carry the style; refused with `md`.",
    { default: false },
  ),
  ttl: num(
    "Seconds this render's file and its side renders (`save_html`, `save_metadata`...) are kept and served, 60–2,592,000. Default: the server's render lifetime (`renderTtlDays`, 30 days unless its operator changed it). A value above the server's lifetime is refused (400 `InvalidTtl`), never cut short.",
    { min: TTL_BOUNDS.min, max: TTL_BOUNDS.max, integer: true },
  ),
  maxSectionHeight: num(
    "Image formats, with `full_page`, `selector` or `clip`: the height of one screenshot, in device pixels, when a tall capture is taken in sections and stitched (1,000–10,000). The output is the same; only the number of screenshots changes (smaller sections: less browser memory per screenshot, more screenshots). Default: 8,192 device pixels (measured fastest), not the catalogue's 4,096. Not with `full_page_mode: native` (one screenshot).",
    { min: 1_000, max: 10_000, integer: true },
  ),
} as const;

/** `format` is one of the screenshot formats that capture in sections. */
const sectioned = (format: string) => SHAPED_FORMATS.includes(format);

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const PDF_RULES: readonly OptionRule[] = [
  {
    option: "pdfOutline",
    when: (o, format) => o.pdfOutline && format !== "pdf",
    why: "applies to format pdf only",
  },
  {
    option: "pdfTagged",
    when: (o, format) => o.pdfTagged === true && format !== "pdf",
    why: "applies to format pdf only",
  },
  {
    option: "pdfTagged",
    when: (o) => o.pdfOutline && o.pdfTagged === false,
    why: "cannot be false with pdf_outline: Chromium builds the outline from the tagged PDF's structure tree",
  },
  {
    option: "disableLigatures",
    when: (o, format) => o.disableLigatures && format === "md",
    why: "cannot be used with format md: markdown is text without fonts",
  },
  {
    option: "maxSectionHeight",
    when: (o, format) => o.maxSectionHeight !== undefined && !sectioned(format),
    why: "applies to image formats only (png, jpg, webp, avif): the others are not captured in sections",
  },
  {
    option: "maxSectionHeight",
    when: (o) => o.maxSectionHeight !== undefined && o.fullPageMode === "native",
    why: "cannot be used with full_page_mode native, which takes one screenshot",
  },
  {
    option: "maxSectionHeight",
    when: (o) => o.maxSectionHeight !== undefined && !o.fullPage && !o.selector && o.clip === undefined,
    why: "needs full_page, selector or clip: a viewport capture is one screenshot",
  },
];

/** Seconds a render's files are kept: `ttl`, else the server's render lifetime. */
export function renderTtlSeconds(options: { ttl?: number }, settings: Pick<RendererSettings, "renderTtlSeconds">): number {
  return options.ttl ?? settings.renderTtlSeconds;
}

/** Refuses a `ttl` longer than the server keeps renders (400 `InvalidTtl`): files are never cut short silently. */
export function checkTtl(options: { ttl?: number }, settings: Pick<RendererSettings, "renderTtlSeconds">): void {
  if (options.ttl === undefined || options.ttl <= settings.renderTtlSeconds) return;
  throw new RenderError(
    "InvalidTtl",
    `Option ttl (${options.ttl} s) is longer than this server keeps renders (${settings.renderTtlSeconds} s)`,
    { details: { option: "ttl" } },
  );
}
