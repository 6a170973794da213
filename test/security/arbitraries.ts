import { type OptionSpec, type OptionTable, snakeName } from "@renderkit/core";
import fc from "fast-check";

/** Generators of hostile render requests, shared by the parser and the HTTP fuzzing. */

/** Keys that pollute prototypes when an object is merged or assigned carelessly. */
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "__defineGetter__", "hasOwnProperty", "toString", "valueOf"];

/** Strings long enough to hit every length bound, the html limit (5 MiB) included. */
export const huge = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom(1_025, 2_049, 4_097, 1_100_000, 5 * 1024 * 1024 + 1)),
    fc.constantFrom("a", "é", "\u0000", "<", "\u{1F600}", "%"),
  )
  .map(([n, c]) => c.repeat(Math.ceil(n / c.length)));

/** Any JSON value, with prototype keys among the object keys at every depth. */
export const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 2 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), tie("value")), { maxLength: 4 })
      .map((entries) => Object.fromEntries(entries)),
  ),
})).value;

const numberish = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.5),
  fc.constantFrom("1e3", "0x10", " 5 ", "Infinity", "-1", "3.", ".5", "1_000", "٣", "10px"),
  fc.integer().map(String),
);

/** Values for one option: plausible for its type, near and beyond its bounds, or anything at all. */
export function valueFor(spec: OptionSpec | undefined): fc.Arbitrary<unknown> {
  const anything = fc.oneof(json, huge);
  if (!spec) return anything;
  const typed: fc.Arbitrary<unknown> = (() => {
    switch (spec.type) {
      case "boolean":
        return fc.oneof(
          fc.boolean(),
          fc.constantFrom("true", "false", "1", "0", "", "yes", "TRUE"),
          fc.integer({ min: -2, max: 2 }),
        );
      case "number":
        return fc.oneof(
          fc.integer({ min: Math.ceil(spec.min) - 5, max: Math.floor(Math.min(spec.max, 2 ** 40)) + 5 }),
          numberish,
        );
      case "enum":
        return fc.oneof(
          fc.constantFrom(...spec.values),
          fc.constantFrom(...spec.values).map((v) => ` ${v.toUpperCase()} `),
          fc.string({ maxLength: 12 }),
        );
      case "string":
        return fc.oneof(
          fc.string({ maxLength: Math.min(spec.maxLength + 5, 5_000) }),
          fc.string({ unit: "binary", maxLength: 40 }),
        );
      case "strings":
        return fc.oneof(fc.string({ maxLength: 50 }), fc.array(fc.string({ maxLength: 50 }), { maxLength: spec.maxItems + 2 }));
      case "length":
        return fc.oneof(numberish, fc.constantFrom("1in", "2.5cm", "10mm", "12px", "1 furlong", "-1in"));
    }
  })();
  return fc.oneof({ weight: 3, arbitrary: typed }, { weight: 1, arbitrary: anything });
}

/** Addresses a render may not load, or that are not addresses: parsing or the address check refuses them. */
export const refusedUrl = fc.oneof(
  fc.constantFrom(
    "http://10.0.0.1/",
    "http://127.0.0.1:1/",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "//x",
    "http://[::1",
    "http://a b/",
    "",
  ),
  // Names under `.invalid` never resolve (RFC 6761): a fuzzed request never renders a real site.
  fc.string({ maxLength: 30 }).map((s) => `http://${encodeURIComponent(s)}.invalid/`),
  fc.string({ maxLength: 30 }).map((s) => `gopher://${s}`),
);

/**
 * Render option objects: known names in every spelling with values for their type, prototype
 * keys, unknown and huge names, `url` and `format`. `url` is one of `urls` (the HTTP fuzzing passes
 * only refused addresses, so that nothing renders); `html` is never a renderable string there
 * (`htmlStrings: false`).
 */
export function optionObjects(
  table: OptionTable,
  formats: readonly string[],
  { urls, htmlStrings }: { urls: fc.Arbitrary<string>; htmlStrings: boolean },
): fc.Arbitrary<Record<string, unknown>> {
  const specs = new Map<string, OptionSpec>();
  for (const [name, spec] of Object.entries(table)) {
    for (const spelling of [name, snakeName(name), ...(spec.aliases ?? [])]) specs.set(spelling, spec);
  }
  const own = new Set([table.url, table.html, table.format]);
  const known = [...specs].filter(([, spec]) => !own.has(spec)).map(([name]) => name);
  // A one-element array counts as its element (form bodies repeat keys): no string hides in one.
  const notRenderable = fc.oneof(
    fc.constant("a".repeat(5 * 1024 * 1024 + 1)),
    fc.jsonValue({ maxDepth: 1 }).filter((v) => typeof v !== "string" && !Array.isArray(v)),
  );
  const entry = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known).chain((n) => fc.tuple(fc.constant(n), valueFor(specs.get(n)))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), json) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 40 }), json) },
    { weight: 1, arbitrary: fc.tuple(huge, fc.constant(1)) },
    { weight: 2, arbitrary: fc.tuple(fc.constant("url"), urls) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constant("html"), htmlStrings ? fc.oneof(fc.string(), huge, json) : notRenderable),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constant("format"), fc.oneof(fc.constantFrom(...formats, "JPEG", "gif", " PDF "), json)),
    },
  );
  return fc.array(entry, { maxLength: 12 }).map((entries) => Object.fromEntries(entries));
}

/** A value of a counterexample in at most a few hundred characters (fuzzed strings run to megabytes). */
function shorten(value: unknown): string {
  if (value instanceof Uint8Array) {
    const head = JSON.stringify(Buffer.from(value.subarray(0, 120)).toString("latin1"));
    return `<${value.byteLength} bytes: ${head}${value.byteLength > 120 ? "…" : ""}>`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/**
 * fast-check's `reporter` option: on failure, throws with the seed, the path to replay it and a
 * shortened counterexample, instead of fast-check's default message, which prints every byte of a
 * multi-megabyte input into the CI log.
 */
export function compactReporter<Ts extends unknown[]>(details: fc.RunDetails<Ts>): void {
  if (!details.failed) return;
  const cause = details.errorInstance;
  const why = (cause instanceof Error ? cause.message : String(cause)).slice(0, 2_000);
  const example = (details.counterexample ?? []).map(shorten).join(",\n  ");
  throw new Error(
    `Property failed after ${details.numRuns} runs (replay: { seed: ${details.seed}, path: "${details.counterexamplePath}" })\n` +
      `counterexample:\n  ${example}\n${why}`,
    { cause },
  );
}
