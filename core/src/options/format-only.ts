import type { FormatOnly, OptionSpec, OptionTable } from "../contracts/option-spec.js";
import { RenderError } from "../errors.js";
import { snakeName } from "./names.js";

/** An option of the table that only some formats read, with its name. */
export interface FormatOnlyOption extends FormatOnly {
  option: string;
}

/** The options of `table` that only some formats read, in table order. */
export function formatOnlyOptions(table: OptionTable): FormatOnlyOption[] {
  return Object.entries(table).flatMap(([option, spec]) => (spec.only ? [{ option, ...spec.only, why: whyOf(spec.only) }] : []));
}

/** `why` with `{formats}` replaced by the formats that read the option (merged across formatters). */
function whyOf(only: FormatOnly): string {
  return only.why.replaceAll("{formats}", only.formats.join(", "));
}

/** True when `value` asks for something: set, not false, not the option's default. */
function asksFor(spec: OptionSpec, value: unknown): boolean {
  if (value === undefined || value === false) return false;
  return !("default" in spec) || JSON.stringify(value) !== JSON.stringify(spec.default);
}

/** Refuses the first option that `format` does not read and whose value asks for something. */
export function checkFormatOnly(options: Record<string, unknown>, format: string, table: OptionTable): void {
  for (const [option, spec] of Object.entries(table)) {
    const only = spec.only;
    if (!only || only.otherwise === "ignore" || only.formats.includes(format) || !asksFor(spec, options[option])) continue;
    const name = snakeName(option);
    throw new RenderError("InvalidOptions", `Option ${name} ${whyOf(only)}`, { details: { option: name } });
  }
}

/** The client's spellings of sent options that `format` does not read and ignores (for `X-Ignored-Options`). */
export function ignoredForFormat(sent: Readonly<Record<string, string>>, format: string, table: OptionTable): string[] {
  return Object.entries(table).flatMap(([option, spec]) => {
    const spelling = sent[option];
    return spec.only?.otherwise === "ignore" && spelling !== undefined && !spec.only.formats.includes(format) ? [spelling] : [];
  });
}

/**
 * Merges option tables, refusing a name defined twice with different specs. The same option
 * declared by two formatters with `only` and the same type, bounds and default (`transparent` by
 * the image and svg formats) is kept once, with the formats of both and the first one's doc.
 */
export function mergeOptionTables(base: OptionTable, parts: readonly { name: string; options?: OptionTable }[]): OptionTable {
  const table: Record<string, OptionSpec> = { ...base };
  for (const part of parts) {
    for (const [name, spec] of Object.entries(part.options ?? {})) {
      const have = table[name];
      if (!have) {
        table[name] = spec;
        continue;
      }
      const { only: a, doc: _docHave, ...restHave } = have;
      const { only: b, doc: _docSpec, ...restSpec } = spec;
      if (name in base || !a || !b || JSON.stringify(restHave) !== JSON.stringify(restSpec)) {
        throw new Error(`Option "${name}" of ${part.name} is already defined`);
      }
      table[name] = { ...have, only: { ...a, formats: [...new Set([...a.formats, ...b.formats])] } };
    }
  }
  return table;
}
