import type { OptionRule } from "./combinations.js";

/** Image shaping options (issue 11): clip, widths, backgrounds, thumbnail fitting, device pixel ratio, full-page mode, header strip. Merged into `CORE_OPTIONS`; names and defaults follow options-catalogue.md. */
export const IMAGE_OPTIONS = {} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const IMAGE_RULES: readonly OptionRule[] = [];
