/**
 * Declarative option specs: the shape of the option tables the core and every plugin declare. One
 * table drives parsing (coercion, bounds, aliases), the TypeScript type of parsed options and the
 * JSON Schema published in the OpenAPI document. The builders (`bool`, `num`...) are in
 * options/spec.ts.
 */
interface BaseSpec {
  /** One-line meaning, published in the OpenAPI document. */
  doc: string;
  /** Other accepted names (any spelling; matched after camelCase normalisation). */
  aliases?: readonly string[];
  /**
   * Handled by the HTTP server (`@renderkit/server` takes it out before the renderer parses the
   * rest); the library accepts it and reports it as ignored.
   */
  serverOnly?: boolean;
  /**
   * A credential of the caller's (`authorization`, `proxy`, `headers`, `cookies`, the presigned
   * upload addresses): a renderer with `jobSecrets` keeps it encrypted while the render waits in
   * its queue, and the server's log never shows it. Plugins mark their own credentials the same way.
   */
  secret?: boolean;
  /** The formats that read this option (set by the formatter that owns it); see `FormatOnly`. */
  only?: FormatOnly;
}

/**
 * An option only some formats read. Sent with another format, it is refused (400 `InvalidOptions`,
 * "Option <name> <why>") when its value asks for something (set, not false, not the default), or,
 * with `otherwise: "ignore"`, named in `X-Ignored-Options` (clients send `quality=80` or
 * `pdf_page_size=A4` on every request; refusing them would break those clients). Two formatters
 * may declare the same option with the same spec: their formats are merged.
 */
export interface FormatOnly {
  formats: readonly string[];
  /** Completes "Option <name> ..." (refused) or describes what it does (ignored); `{formats}` stands for the formats. */
  why: string;
  otherwise?: "refuse" | "ignore";
}

export interface BooleanSpec extends BaseSpec {
  type: "boolean";
  default?: boolean;
}

export interface NumberSpec extends BaseSpec {
  type: "number";
  min: number;
  max: number;
  integer?: boolean;
  default?: number;
}

export interface StringSpec extends BaseSpec {
  type: "string";
  maxLength: number;
  default?: string;
}

export interface EnumSpec<V extends string = string> extends BaseSpec {
  type: "enum";
  values: readonly V[];
  /** Accepted spellings mapped to a value (`jpeg` → `jpg`); matching is case-insensitive. */
  synonyms?: Readonly<Record<string, V>>;
  default?: V;
}

/** A string or a repeated string (`click`, `headers`); also a JSON array. */
export interface StringListSpec extends BaseSpec {
  type: "strings";
  maxItems: number;
  maxLength: number;
}

/** A number or a string such as a CSS length (`pdf_margin_top`). */
export interface LengthSpec extends BaseSpec {
  type: "length";
}

export type OptionSpec = BooleanSpec | NumberSpec | StringSpec | EnumSpec | StringListSpec | LengthSpec;
export type OptionTable = Readonly<Record<string, OptionSpec>>;

type ValueOf<S> = S extends BooleanSpec
  ? boolean
  : S extends NumberSpec
    ? number
    : S extends EnumSpec<infer V>
      ? V
      : S extends StringListSpec
        ? string[]
        : S extends LengthSpec
          ? string | number
          : string;

type Defaulted<T extends OptionTable> = { [K in keyof T as T[K] extends { default: unknown } ? K : never]: ValueOf<T[K]> };
type Optional<T extends OptionTable> = {
  [K in keyof T as T[K] extends { default: unknown } ? never : K]?: ValueOf<T[K]>;
};

/** The parsed shape of a table: options with defaults are always present. */
export type OptionsOf<T extends OptionTable> = Defaulted<T> & Optional<T>;
