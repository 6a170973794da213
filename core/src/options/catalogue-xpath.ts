import type { OptionRule } from "./combinations.js";

/** XPath variants of the interaction options (issue 11 follow-up): click_x, click_all_x, scroll_to_x. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const XPATH_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const XPATH_RULES: readonly OptionRule[] = [];
