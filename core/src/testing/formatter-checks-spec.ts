import { expect } from "vitest";
import type { EngineCapability } from "../contracts/engine.js";
import type { FormatSpec } from "../contracts/formatter.js";
import type { PageSettings } from "../contracts/page-settings.js";
import type { FormatterHarness } from "./formatter-harness.js";

/** Every engine capability; `satisfies` makes a new capability a compile error here until it is listed. */
const CAPABILITIES = {
  screenshot: true,
  pdf: true,
  content: true,
  screencast: true,
  snapshot: true,
} as const satisfies Record<EngineCapability, true>;

/** Every page setting, likewise. */
const PAGE_SETTINGS = {
  width: true,
  height: true,
  deviceScaleFactor: true,
  userAgent: true,
  headers: true,
  cookies: true,
  locale: true,
  timezone: true,
  colorScheme: true,
  reducedMotion: true,
  javaScriptEnabled: true,
  media: true,
  waitUntil: true,
  timeoutMs: true,
  policy: true,
  requestFilter: true,
  initScripts: true,
  authorization: true,
  geolocation: true,
  proxy: true,
  recordResources: true,
  egressLimits: true,
  isolationKey: true,
} as const satisfies Record<keyof PageSettings, true>;

/**
 * Settings that decide where the page may reach (the core's address policy alone sets them:
 * docs/security.md#decisions) and whose pages it may share (the project).
 */
const NETWORK_SETTINGS: readonly (keyof PageSettings)[] = [
  "policy",
  "proxy",
  "requestFilter",
  "authorization",
  "egressLimits",
  "isolationKey",
];

/** Longest time a format may add to an attempt: an hour (the longest video and its encode fit well within). */
const MAX_EXTRA_MS = 3_600_000;

/** The `format` option is parsed as at most 16 characters. */
const FORMAT_NAME = /^[a-z0-9]{1,16}$/;
const CONTENT_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*(; ?[a-z0-9-]+=[^;\s]+)*$/;

/** What is wrong with a spec, or undefined. */
function specProblem(spec: FormatSpec): string | undefined {
  if (!FORMAT_NAME.test(spec.format)) return `format "${spec.format}" is not 1 to 16 lowercase letters and digits`;
  if (!CONTENT_TYPE.test(spec.contentType)) return `content type "${spec.contentType}" is not a lowercase media type`;
  if (!/^[a-z0-9]+$/.test(spec.extension)) return `extension "${spec.extension}" is not lowercase letters and digits (no dot)`;
  if (!Array.isArray(spec.requires)) return "requires is not a list of engine capabilities";
  const unknown = spec.requires.filter((c) => !Object.hasOwn(CAPABILITIES, c));
  if (unknown.length > 0) return `requires unknown capabilities: ${unknown.join(", ")}`;
  const aliases = (spec as { aliases?: readonly string[] }).aliases ?? [];
  const bad = aliases.filter((a) => !FORMAT_NAME.test(a) || a === spec.format);
  if (bad.length > 0) return `aliases ${bad.join(", ")} are not lowercase format names other than its own`;
  return undefined;
}

/** Checks of what a formatter declares and of its hooks' answers. */
export function specChecks(h: FormatterHarness): void {
  h.check("the plugin registers named formatters whose formats the renderer offers", () => {
    expect(h.formatters.length, "formatters the plugin registered").toBeGreaterThan(0);
    for (const formatter of h.formatters) {
      expect(formatter.name, "formatter name").toMatch(/\S/);
      expect(formatter.formats.length, `${formatter.name} declares formats`).toBeGreaterThan(0);
    }
    for (const { spec } of h.specs) expect(h.renderer.formats, "formats of the renderer").toContain(spec.format);
    const declared = h.specs.map((s) => s.spec.format);
    for (const format of Object.keys(h.options.samples ?? {}))
      expect(declared, "a sample names a declared format").toContain(format);
  });

  h.check("every FormatSpec is well formed: lowercase name and extension, a media type, known capabilities", () => {
    for (const { spec } of h.specs) expect(specProblem(spec), `format ${JSON.stringify(spec)}`).toBeUndefined();
  });

  h.check("no format or alias is claimed twice", () => {
    const names = h.specs.flatMap(({ spec }) => [spec.format, ...((spec as { aliases?: readonly string[] }).aliases ?? [])]);
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      "names claimed twice",
    ).toEqual([]);
    const own = new Set(h.specs.map((s) => s.spec.format));
    const others = h.renderer.formats.filter((f) => !own.has(f));
    expect(
      names.filter((n) => others.includes(n)),
      "names of other formatters' formats",
    ).toEqual([]);
  });

  h.check("extraTimeMs, maxPixelHeight and pageSettings give sane answers for every format's sample request", () => {
    for (const { formatter, spec } of h.specs) {
      const { options } = h.renderer.parse(h.request(spec.format));
      const at = `${formatter.name} ${spec.format}`;
      if (formatter.extraTimeMs) {
        const ms = formatter.extraTimeMs(options, spec);
        expect(Number.isFinite(ms) && ms >= 0 && ms <= MAX_EXTRA_MS, `${at}: extraTimeMs ${ms} is 0..${MAX_EXTRA_MS}`).toBe(true);
      }
      if (formatter.maxPixelHeight) {
        const px = formatter.maxPixelHeight(options, spec);
        if (px !== undefined) expect(Number.isFinite(px) && px >= 1, `${at}: maxPixelHeight ${px} is at least 1`).toBe(true);
      }
      if (formatter.pageSettings) {
        const settings = formatter.pageSettings(options, spec);
        expect(settings, `${at}: pageSettings answers an object`).toBeTypeOf("object");
        expect(settings).not.toBeNull();
        for (const key of Object.keys(settings)) {
          expect(Object.hasOwn(PAGE_SETTINGS, key), `${at}: pageSettings sets ${key}, which is no page setting`).toBe(true);
          expect(NETWORK_SETTINGS, `${at}: pageSettings must leave ${key} to the core`).not.toContain(key);
        }
        for (const key of ["width", "height", "deviceScaleFactor", "timeoutMs"] as const) {
          const value = settings[key];
          if (value !== undefined) expect(Number.isFinite(value) && value > 0, `${at}: ${key} ${value}`).toBe(true);
        }
        if (settings.media !== undefined) expect(["screen", "print"], `${at}: media`).toContain(settings.media);
      }
    }
  });
}
