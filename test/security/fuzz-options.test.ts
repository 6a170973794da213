import "./figures-meta.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer, ERROR_CODES, type Renderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { markdownFormat } from "@renderkit/format-markdown";
import { svgFormat } from "@renderkit/format-svg";
import { videoFormats } from "@renderkit/format-video";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactReporter, json, optionObjects, refusedUrl } from "./arbitraries.js";

/**
 * Property-based fuzzing of the options parser (`renderer.parse`, which every render route and the
 * CLI call first) with every first-party engine and format installed: whatever object a client
 * sends, parsing either succeeds or throws a `RenderError` with a spec code and a message, never
 * another exception, and `Object.prototype` stays untouched. No browser starts: parsing needs none.
 */

/** Generated inputs per property; the parser is fast, so these take a few seconds in all. */
const RUNS = 1_500;
const CODES: readonly string[] = ERROR_CODES;

let renderer: Renderer;
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "renderkit-fuzz-"));
  renderer = await createRenderer({
    plugins: [playwright(), puppeteer(), imageFormats(), markdownFormat(), svgFormat(), videoFormats()],
    dataDir,
    logger: new ConsoleLogger("silent"),
  });
});
afterAll(async () => {
  await renderer?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The parse either succeeds or throws a RenderError with a spec code and a message. */
function parsesOrRefuses(input: unknown): void {
  try {
    renderer.parse(input as Record<string, unknown>);
  } catch (error) {
    const e = error as { name?: unknown; code?: unknown; message?: unknown };
    if (e?.name !== "RenderError") throw new Error(`not a RenderError: ${String(error)}`, { cause: error });
    expect(CODES).toContain(e.code);
    expect(typeof e.message === "string" && e.message.length > 0, `empty message for ${String(e.code)}`).toBe(true);
  }
}

const prototypeState = () =>
  [Object.prototype, Array.prototype, Function.prototype].map((p) => Object.getOwnPropertyNames(p).sort().join(",")).join("|");

describe("options parser", () => {
  let options: fc.Arbitrary<Record<string, unknown>>;
  beforeAll(() => {
    const urls = fc.oneof(fc.webUrl(), fc.string(), refusedUrl);
    options = optionObjects(renderer.optionTable, renderer.formats, { urls, htmlStrings: true });
  });

  it("any object of known, unknown and prototype names parses or is refused with a spec code", ({ task }) => {
    task.meta.fuzz = { subject: "options parser", runs: RUNS };
    const before = prototypeState();
    fc.assert(
      fc.property(options, (input) => {
        parsesOrRefuses(input);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: RUNS, reporter: compactReporter },
    );
    expect(prototypeState()).toBe(before);
  });

  it("any JSON value at the top, objects with prototype keys included, parses or is refused", ({ task }) => {
    task.meta.fuzz = { subject: "options parser", runs: RUNS };
    const before = prototypeState();
    fc.assert(
      fc.property(json, (input) => parsesOrRefuses(input)),
      { numRuns: RUNS, reporter: compactReporter },
    );
    expect(prototypeState()).toBe(before);
  });

  it("JSON texts with __proto__ payloads never pollute Object.prototype", ({ task }) => {
    const payload = fc.constantFrom(
      '{"__proto__": {"polluted": "yes"}, "url": "https://example.com"}',
      '{"constructor": {"prototype": {"polluted": "yes"}}, "html": "<p>x</p>"}',
      '{"headers": {"__proto__": {"polluted": "yes"}}, "url": "https://example.com"}',
      '{"cookies": [{"__proto__": {"polluted": "yes"}}], "url": "https://example.com"}',
      '{"metadata": {"__proto__": {"polluted": "yes"}}, "url": "https://example.com"}',
      '{"__proto__": [1, 2], "prototype": {"polluted": "yes"}, "url": "https://example.com"}',
    );
    task.meta.fuzz = { subject: "options parser", runs: 600 };
    const before = prototypeState();
    fc.assert(
      fc.property(payload, options, (text, extra) => {
        parsesOrRefuses({ ...extra, ...JSON.parse(text) });
        parsesOrRefuses(JSON.parse(text));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty("polluted");
      }),
      { numRuns: 300, reporter: compactReporter },
    );
    expect(prototypeState()).toBe(before);
  });
});
