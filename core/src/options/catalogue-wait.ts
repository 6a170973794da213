import type { OptionRule } from "./combinations.js";

/** Waiting and page options (issue 11): wait states, image wait, global timeout, animations, highlighting, more blocking, reader view. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const WAIT_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const WAIT_RULES: readonly OptionRule[] = [];
