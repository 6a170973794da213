import { RenderError } from "../errors.js";
import type { RenderOptions } from "./catalogue.js";
import { IMAGE_RULES } from "./catalogue-image.js";
import { SIDE_RULES } from "./catalogue-side.js";
import { TARGET_RULES } from "./catalogue-target.js";
import { WAIT_RULES } from "./catalogue-wait.js";
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

/** Rules about options that existed before issue 11. */
export const CORE_RULES: readonly OptionRule[] = [];

/** Every rule, in the order they are checked. */
export const OPTION_RULES: readonly OptionRule[] = [...CORE_RULES, ...IMAGE_RULES, ...SIDE_RULES, ...TARGET_RULES, ...WAIT_RULES];

/** Refuses the first combination of `options` that cannot work for `format`. */
export function checkCombinations(options: RenderOptions & Record<string, unknown>, format: string): void {
  for (const rule of OPTION_RULES) {
    if (!rule.when(options, format)) continue;
    const name = snakeName(rule.option);
    throw new RenderError("InvalidOptions", `Option ${name} ${rule.why}`, { details: { option: name } });
  }
}
