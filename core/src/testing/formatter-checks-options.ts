import { expect } from "vitest";
import type { FormatSpec, Formatter } from "../contracts/formatter.js";
import type { OptionSpec } from "../contracts/option-spec.js";
import { camelize, snakeName } from "../options/names.js";
import { indexTable, parseOptions } from "../options/parse.js";
import { expectRenderError } from "./assertions.js";
import type { FormatterHarness } from "./formatter-harness.js";

/** One option of the plugin, with the format a request for it names. */
interface OwnOption {
  name: string;
  spec: OptionSpec;
  formatter: Formatter;
  format: FormatSpec;
}

/** The options the plugin's formatters add, each with a format that reads it. */
function ownOptions(h: FormatterHarness): OwnOption[] {
  return h.formatters.flatMap((formatter) =>
    Object.entries(formatter.options ?? {}).map(([name, spec]) => {
      const only = (spec as { only?: { formats: readonly string[] } }).only?.formats;
      const format = formatter.formats.find((f) => !only || only.includes(f.format)) ?? formatter.formats[0];
      return { name, spec, formatter, format: format as FormatSpec };
    }),
  );
}

/** Values the option's spec refuses (each one alone must be a 400). */
function badValues(spec: OptionSpec): unknown[] {
  switch (spec.type) {
    case "boolean":
      return ["maybe"];
    case "number":
      return ["twelve", ...(spec.max + 1 > spec.max ? [spec.max + 1] : []), ...(spec.min - 1 < spec.min ? [spec.min - 1] : [])];
    case "string":
      return ["x".repeat(spec.maxLength + 1)];
    case "enum":
      return ["no-such-value-at-all"];
    case "strings":
      return [Array.from({ length: spec.maxItems + 1 }, () => "a"), ["x".repeat(spec.maxLength + 1)]];
    case "length":
      return ["12 parsecs", -5];
  }
}

/** What is wrong with a spec's shape, or undefined. */
function specProblem(spec: OptionSpec): string | undefined {
  if (typeof spec.doc !== "string" || spec.doc.trim() === "") return "has no doc (it is published in the OpenAPI document)";
  const d = (spec as { default?: unknown }).default;
  switch (spec.type) {
    case "boolean":
      return d === undefined || typeof d === "boolean" ? undefined : "has a default that is not a boolean";
    case "number":
      if (!Number.isFinite(spec.min) || !Number.isFinite(spec.max) || spec.min > spec.max) return "has no finite min ≤ max";
      if (d === undefined) return undefined;
      if (typeof d !== "number" || d < spec.min || d > spec.max) return "has a default outside min..max";
      return spec.integer && !Number.isInteger(d) ? "has a fractional default but takes whole numbers" : undefined;
    case "string":
      if (!Number.isInteger(spec.maxLength) || spec.maxLength < 1) return "has no maxLength ≥ 1";
      return d === undefined || (typeof d === "string" && d.length <= spec.maxLength)
        ? undefined
        : "has a default longer than maxLength";
    case "enum":
      if (spec.values.length === 0 || new Set(spec.values).size !== spec.values.length) return "has no values, or repeats one";
      return d === undefined || spec.values.includes(d as string) ? undefined : "has a default that is not one of its values";
    case "strings":
      return spec.maxItems >= 1 && spec.maxLength >= 1 ? undefined : "has no maxItems ≥ 1 and maxLength ≥ 1";
    case "length":
      return undefined;
    default:
      return `has an unknown type ${(spec as { type: unknown }).type}`;
  }
}

/** Runs `fn` as a promise, so a synchronous throw becomes a rejection. */
const attempt = (fn: () => unknown): Promise<unknown> => Promise.resolve().then(fn);

/** Checks of the options a formatter adds to the request schema, and of its `validate`. */
export function optionChecks(h: FormatterHarness): void {
  h.check("its options are a valid table: camelCase names whose snake_case spelling parses back, docs, sane bounds", (skip) => {
    const own = ownOptions(h);
    if (own.length === 0) return skip("the plugin adds no options");
    for (const formatter of h.formatters) expect(() => indexTable(formatter.options ?? {}), formatter.name).not.toThrow();
    for (const { name, spec } of own) {
      expect(name, "option names are camelCase").toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(camelize(snakeName(name)), `${name}: its snake_case spelling ${snakeName(name)} names it again`).toBe(name);
      expect(specProblem(spec), `option ${snakeName(name)}`).toBeUndefined();
      expect(h.renderer.optionTable[name], `the renderer knows ${name}`).toMatchObject({ type: spec.type });
    }
  });

  h.check("every default of its options survives parsing, sent in snake_case and in camelCase", (skip) => {
    const defaulted = ownOptions(h).filter(({ spec }) => "default" in spec && spec.default !== undefined && !spec.serverOnly);
    if (defaulted.length === 0) return skip("no option of the plugin has a default");
    for (const { name, spec, format } of defaulted) {
      const value = (spec as { default?: unknown }).default;
      const implicit = h.renderer.parse(h.bare(format.format)).options[name];
      expect(implicit, `${snakeName(name)} left out takes its default`).toEqual(value);
      for (const spelling of [snakeName(name), name]) {
        const sent = h.renderer.parse(h.bare(format.format, { [spelling]: value }));
        expect(sent.options[name], `${spelling}: ${JSON.stringify(value)}`).toEqual(value);
        expect(sent.ignored, `${spelling} is not reported as ignored`).not.toContain(spelling);
      }
    }
  });

  h.check("a bad value of each of its options is refused with InvalidOptions naming the option", async (skip) => {
    const own = ownOptions(h);
    if (own.length === 0) return skip("the plugin adds no options");
    for (const { name, spec, format } of own) {
      if (spec.serverOnly) continue;
      for (const bad of badValues(spec)) {
        const error = await expectRenderError(
          attempt(() => h.renderer.parse(h.bare(format.format, { [snakeName(name)]: bad }))),
          "InvalidOptions",
        );
        expect(error.message, `${snakeName(name)}: ${JSON.stringify(bad)}`).toContain(snakeName(name));
      }
    }
  });

  h.check("validate accepts the sample request of every format", () => {
    for (const { formatter, spec } of h.specs) {
      const parsed = h.renderer.parse(h.request(spec.format));
      expect(() => formatter.validate?.(parsed.options, spec), spec.format).not.toThrow();
    }
  });

  h.check(
    "its own checks (validate, rules) refuse the samples' invalid requests with InvalidOptions naming the option",
    async (skip) => {
      const cases = h.specs.flatMap(({ formatter, spec }) =>
        (h.sample(spec.format).invalid ?? []).map((c) => ({ ...c, formatter, spec })),
      );
      if (cases.length === 0) return skip("no sample names an invalid request");
      for (const { options, option, formatter, spec } of cases) {
        const input = h.request(spec.format, options);
        const what = `${spec.format} ${JSON.stringify(options)}`;
        // The option table takes it: what refuses it is the formatter's own check, not a bound.
        const parsed = parseOptions(input, { table: h.renderer.optionTable, formats: h.renderer.formats });
        const error = await expectRenderError(
          attempt(() => h.renderer.parse(input)),
          "InvalidOptions",
        );
        expect(error.message, what).toContain(option);
        // When it is `validate` that refuses (not a rule), it does so as a client is told: a RenderError naming the option.
        let thrown: unknown;
        try {
          formatter.validate?.(parsed.options, spec);
        } catch (e) {
          thrown = e;
        }
        if (thrown !== undefined) {
          expect(thrown, `${what}: validate throws`).toMatchObject({ code: "InvalidOptions" });
          expect(String((thrown as Error).message), what).toContain(option);
        }
      }
    },
  );
}
