import type { OptionRule } from "./combinations.js";

/** Options about the target site (issue 11): authorization, platform, geolocation, proxy. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const TARGET_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const TARGET_RULES: readonly OptionRule[] = [];
