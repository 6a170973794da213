import type { Engine } from "./contracts/engine.js";
import type { FormatSpec, Formatter, SideRenderKind } from "./contracts/formatter.js";
import type { OptionRule } from "./contracts/option-rule.js";
import { RenderError } from "./errors.js";

/** Engines keyed by name; the first registered is the default. Duplicate names fail at boot. */
export class EngineRegistry {
  private readonly byName = new Map<string, Engine>();

  constructor(engines: readonly Engine[]) {
    for (const engine of engines) {
      if (this.byName.has(engine.name)) throw new Error(`Two engines are registered as "${engine.name}"`);
      this.byName.set(engine.name, engine);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  all(): Engine[] {
    return [...this.byName.values()];
  }

  /** The named engine, or the default; `EngineResponseNotOkError` names what is missing. */
  get(name?: string): Engine {
    const engine = name ? this.byName.get(name) : this.byName.values().next().value;
    if (engine) return engine;
    const installed = this.names.join(", ") || "none";
    const hint = name
      ? `engine "${name}" is not installed (installed: ${installed}); add @renderkit/engine-${name}`
      : "no engine is installed; add @renderkit/engine-playwright";
    throw new RenderError(name ? "InvalidOptions" : "EngineResponseNotOkError", `Cannot render: ${hint}`, {
      details: { option: "engine" },
    });
  }
}

/** Formatters keyed by format; a format claimed twice fails at boot. */
export class FormatterRegistry {
  private readonly byFormat = new Map<string, { formatter: Formatter; spec: FormatSpec }>();

  constructor(formatters: readonly Formatter[]) {
    for (const formatter of formatters) {
      for (const spec of formatter.formats) {
        const owner = this.byFormat.get(spec.format);
        if (owner) {
          throw new Error(`Format "${spec.format}" is provided twice (${owner.formatter.name}, ${formatter.name})`);
        }
        this.byFormat.set(spec.format, { formatter, spec });
      }
    }
  }

  get formats(): string[] {
    return [...this.byFormat.keys()];
  }

  all(): Formatter[] {
    return [...new Set([...this.byFormat.values()].map((e) => e.formatter))];
  }

  /** Other names of formats (`jpeg`), lowercased, mapped to the format. */
  get aliases(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { spec } of this.byFormat.values()) for (const alias of spec.aliases ?? []) out[alias.toLowerCase()] = spec.format;
    return out;
  }

  /** The format whose output is the side file `kind` (`FormatSpec.sideRender`), if one is installed. */
  side(kind: SideRenderKind): { formatter: Formatter; spec: FormatSpec } | undefined {
    return [...this.byFormat.values()].find((entry) => entry.spec.sideRender === kind);
  }

  /** Every formatter's `rules`. */
  get rules(): OptionRule[] {
    return this.all().flatMap((formatter) => formatter.rules ?? []);
  }

  get(format: string): { formatter: Formatter; spec: FormatSpec } {
    const entry = this.byFormat.get(format);
    if (!entry) throw new RenderError("InvalidOptions", `Option format "${format}" is not available`);
    return entry;
  }
}
