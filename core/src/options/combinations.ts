import { RenderError } from "../errors.js";
import type { RenderOptions } from "./catalogue.js";
import { IMAGE_RULES } from "./catalogue-image.js";
import { PDF_RULES } from "./catalogue-pdf.js";
import { SIDE_RULES } from "./catalogue-side.js";
import { STORAGE_RULES } from "./catalogue-storage.js";
import { TARGET_RULES } from "./catalogue-target.js";
import { WAIT_RULES } from "./catalogue-wait.js";
import { XPATH_RULES } from "./catalogue-xpath.js";
import { snakeName } from "./names.js";

/**
 * A combination of options that cannot work: the request is refused with 400 `InvalidOptions`
 * naming `option`, instead of rendering something the option did not ask for. The rules are
 * also listed in docs/compatibility.md (refused, and why).
 */
export interface OptionRule {
  /** The option refused (camelCase). */
  option: string;
  /** True when the request cannot be honoured. */
  when: (options: RenderOptions & Record<string, unknown>, format: string) => boolean;
  /** Why, completing "Option <name> ...": e.g. "cannot be used with format pdf: a PDF prints the whole document". */
  why: string;
}

/** Formats that `thumb_width` / `thumb_height` resize. */
const RESIZED_FORMATS = new Set(["png", "jpg", "webp", "avif"]);
/** Formats with a transparent background (`transparent`). */
const ALPHA_FORMATS = new Set(["png", "webp", "avif", "svg"]);

/** PDF options without a default (or off by default) that only the pdf format reads. */
const PDF_ONLY = [
  "pdfPageWidth",
  "pdfPageHeight",
  "pdfMarginTop",
  "pdfMarginRight",
  "pdfMarginBottom",
  "pdfMarginLeft",
  "pdfPageRange",
  "pdfShowHeader",
  "pdfShowFooter",
] as const;

/** Rules about options that existed before issue 11. */
export const CORE_RULES: readonly OptionRule[] = [
  ...PDF_ONLY.map(
    (option): OptionRule => ({
      option,
      when: (o, format) => format !== "pdf" && o[option] !== undefined && o[option] !== false,
      why: "applies to format pdf only",
    }),
  ),
  {
    option: "selector",
    when: (o, format) => format === "pdf" && o.selector !== undefined && o.selector !== "",
    why: "cannot be used with format pdf: a PDF prints the whole document (capture the element as png, or hide the rest with hide_selector)",
  },
  {
    option: "thumbWidth",
    when: (o, format) => o.thumbWidth !== undefined && !RESIZED_FORMATS.has(format),
    why: "resizes images only (png, jpg, webp, avif)",
  },
  {
    option: "thumbHeight",
    when: (o, format) => o.thumbHeight !== undefined && !RESIZED_FORMATS.has(format),
    why: "resizes images only (png, jpg, webp, avif)",
  },
  {
    option: "transparent",
    when: (o, format) => o.transparent === true && !ALPHA_FORMATS.has(format),
    why: "needs a format with transparency (png, webp, avif, svg); jpg, pdf and the other formats have none",
  },
];

/**
 * An option with a default that only some formats read. Sent with another format it changes
 * nothing, so the request still renders and the option is named in `X-Ignored-Options` (clients
 * send `quality=80` or `pdf_page_size=A4` on every request; refusing them would break those
 * clients). Listed in docs/compatibility.md.
 */
export interface FormatOnlyOption {
  /** The option (camelCase). */
  option: string;
  /** The formats that read it. */
  formats: readonly string[];
  /** What it does, completing "Option <name> ...". */
  why: string;
}

/** PDF options with a default: the pdf format reads them, the others ignore them. */
const PDF_DEFAULTED = [
  "pdfPageSize",
  "pdfOrientation",
  "pdfMargin",
  "pdfBackground",
  "pdfScale",
  "media",
  "pdfHeader",
  "pdfFooter",
];

/** Options with defaults that only some formats read (reported as ignored on the others). */
export const FORMAT_ONLY_OPTIONS: readonly FormatOnlyOption[] = [
  { option: "quality", formats: ["jpg", "webp", "avif"], why: "sets the quality of lossy images: jpg, webp and avif" },
  ...PDF_DEFAULTED.map((option): FormatOnlyOption => ({ option, formats: ["pdf"], why: "applies to format pdf only" })),
];

/** The client's spellings of sent options that `format` does not read (for `X-Ignored-Options`). */
export function ignoredForFormat(sent: Readonly<Record<string, string>>, format: string): string[] {
  return FORMAT_ONLY_OPTIONS.flatMap(({ option, formats }) => {
    const spelling = sent[option];
    return spelling !== undefined && !formats.includes(format) ? [spelling] : [];
  });
}

/** Every rule, in the order they are checked. */
export const OPTION_RULES: readonly OptionRule[] = [
  ...CORE_RULES,
  ...IMAGE_RULES,
  ...SIDE_RULES,
  ...STORAGE_RULES,
  ...TARGET_RULES,
  ...WAIT_RULES,
  ...PDF_RULES,
  ...XPATH_RULES,
];

/** Refuses the first combination of `options` that cannot work for `format`. */
export function checkCombinations(options: RenderOptions & Record<string, unknown>, format: string): void {
  for (const rule of OPTION_RULES) {
    if (!rule.when(options, format)) continue;
    const name = snakeName(rule.option);
    throw new RenderError("InvalidOptions", `Option ${name} ${rule.why}`, { details: { option: name } });
  }
}
