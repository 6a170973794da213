import type {
  BooleanSpec,
  EnumSpec,
  FormatOnly,
  LengthSpec,
  NumberSpec,
  OptionTable,
  StringListSpec,
  StringSpec,
} from "../contracts/option-spec.js";

// The builders of option specs, so a table reads `width: num("Viewport width.", { min: 100, max: 4000 })`;
// the spec types themselves are part of the plugin contract (contracts/option-spec.ts).

export const bool = <D extends boolean | undefined = undefined>(
  doc: string,
  extra: Omit<BooleanSpec, "type" | "doc" | "default"> & { default?: D } = {},
) => ({ type: "boolean" as const, doc, ...extra }) as BooleanSpec & (D extends boolean ? { default: D } : unknown);

export const num = <D extends number | undefined = undefined>(
  doc: string,
  extra: Omit<NumberSpec, "type" | "doc" | "default"> & { default?: D },
) => ({ type: "number" as const, doc, ...extra }) as NumberSpec & (D extends number ? { default: D } : unknown);

export const str = <D extends string | undefined = undefined>(
  doc: string,
  extra: Omit<StringSpec, "type" | "doc" | "default"> & { default?: D },
) => ({ type: "string" as const, doc, ...extra }) as StringSpec & (D extends string ? { default: D } : unknown);

export const oneOf = <V extends string, D extends V | undefined = undefined>(
  doc: string,
  values: readonly V[],
  extra: Omit<EnumSpec<V>, "type" | "doc" | "values" | "default"> & { default?: D } = {},
) => ({ type: "enum" as const, doc, values, ...extra }) as EnumSpec<V> & (D extends V ? { default: D } : unknown);

export const strings = (doc: string, extra: Omit<StringListSpec, "type" | "doc">) =>
  ({ type: "strings" as const, doc, ...extra }) as StringListSpec;

export const length = (doc: string, extra: Omit<LengthSpec, "type" | "doc"> = {}) =>
  ({ type: "length" as const, doc, ...extra }) as LengthSpec;

/**
 * Marks every option of `table` as read by `only.formats` alone (see `FormatOnly`); the options
 * named in `ignored` are reported in `X-Ignored-Options` on other formats instead of refused.
 * Option order is kept.
 */
export function formatOnly<T extends OptionTable>(table: T, only: FormatOnly, ignored: readonly (keyof T & string)[] = []): T {
  const marked = Object.entries(table).map(([name, spec]) => {
    const mark: FormatOnly = ignored.includes(name) ? { ...only, otherwise: "ignore" } : only;
    return [name, { ...spec, only: spec.only ?? mark }];
  });
  return Object.fromEntries(marked) as T;
}
