import type { OptionRule } from "./combinations.js";

/** Side render options (issue 11): save_cookies, save_headers, save_links, save_resource_info, save_mhtml. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const SIDE_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const SIDE_RULES: readonly OptionRule[] = [];
