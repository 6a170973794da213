import type { RenderOptions } from "./render-options.js";

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
