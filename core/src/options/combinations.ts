import type { OptionRule } from "../contracts/option-rule.js";
import type { OptionTable } from "../contracts/option-spec.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { SIDE_RULES } from "./catalogue-side.js";
import { STORAGE_RULES } from "./catalogue-storage.js";
import { TARGET_RULES } from "./catalogue-target.js";
import { WAIT_RULES } from "./catalogue-wait.js";
import { XPATH_RULES } from "./catalogue-xpath.js";
import { checkFormatOnly } from "./format-only.js";
import { snakeName } from "./names.js";

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
