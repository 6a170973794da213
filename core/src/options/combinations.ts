import { RenderError } from "../errors.js";
import type { RenderOptions } from "./catalogue.js";
import { SIDE_RULES } from "./catalogue-side.js";
import { STORAGE_RULES } from "./catalogue-storage.js";
import { TARGET_RULES } from "./catalogue-target.js";
import { WAIT_RULES } from "./catalogue-wait.js";
import { XPATH_RULES } from "./catalogue-xpath.js";
import { checkFormatOnly } from "./format-only.js";
import { snakeName } from "./names.js";
import type { OptionTable } from "./spec.js";

/**
 * A combination of options that cannot work: the request is refused with 400 `InvalidOptions`
 * naming `option`, instead of rendering something the option did not ask for. The rules are
 * also listed in docs/compatibility.md (refused, and why). Formatters add their own
 * (`Formatter.rules`); an option that only some formats read says so in its spec (`only`).
 */
export interface OptionRule {
  /** The option refused (camelCase). */
  option: string;
  /** True when the request cannot be honoured. */
  when: (options: RenderOptions & Record<string, unknown>, format: string) => boolean;
  /** Why, completing "Option <name> ...": e.g. "cannot be used with format pdf: a PDF prints the whole document". */
  why: string;
}

/** The core's rules, about the core's own options. */
export const CORE_RULES: readonly OptionRule[] = [
  ...SIDE_RULES,
  ...STORAGE_RULES,
  ...TARGET_RULES,
  ...WAIT_RULES,
  ...XPATH_RULES,
];

/**
 * Refuses the first combination of `options` that cannot work for `format`: an option `format`
 * does not read (`only` in the option's spec), then the core's rules, then the formatters'.
 */
export function checkCombinations(
  options: RenderOptions & Record<string, unknown>,
  format: string,
  table: OptionTable,
  rules: readonly OptionRule[] = [],
): void {
  checkFormatOnly(options, format, table);
  for (const rule of [...CORE_RULES, ...rules]) {
    if (!rule.when(options, format)) continue;
    const name = snakeName(rule.option);
    throw new RenderError("InvalidOptions", `Option ${name} ${rule.why}`, { details: { option: name } });
  }
}
