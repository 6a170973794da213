import type { OptionSpec, OptionTable } from "../contracts/option-spec.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { camelize, snakeName } from "./names.js";

/** Result of parsing a request: validated options and the names that were ignored. */
export interface ParsedOptions {
  options: RenderOptions & Record<string, unknown>;
  /** Option names as the client sent them, that this renderer does not use (yet). */
  ignored: string[];
  /** The options the client sent (canonical name → the spelling it used); the rest are defaults. */
  sent: Record<string, string>;
}

export interface ParseContext {
  table: OptionTable;
  /** Formats the installed formatters provide. */
  formats: readonly string[];
  /** Spellings accepted for a format (`jpeg` → `jpg`). */
  formatSynonyms?: Readonly<Record<string, string>>;
}

export { camelize, snakeName } from "./names.js";

function invalid(name: string, why: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${snakeName(name)} ${why}`, { details: { option: snakeName(name) } });
}

/** Builds the name → canonical-name index of a table, refusing clashes. */
export function indexTable(table: OptionTable): Map<string, string> {
  const index = new Map<string, string>();
  for (const [name, spec] of Object.entries(table)) {
    for (const alias of [name, ...(spec.aliases ?? [])]) {
      const key = camelize(alias);
      const owner = index.get(key);
      if (owner && owner !== name) throw new Error(`Option name ${alias} is defined twice (${owner}, ${name})`);
      index.set(key, name);
    }
  }
  return index;
}

function single(name: string, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 1) return value[0];
  throw invalid(name, "was given more than once");
}

function coerceBoolean(name: string, raw: unknown): boolean {
  const value = single(name, raw);
  if (typeof value === "boolean") return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (v === "true" || v === "1" || v === "") return true;
    if (v === "false" || v === "0") return false;
  }
  throw invalid(name, "must be a boolean (true, false, 1 or 0)");
}

/** Largest `length` option, in CSS pixels (about 2.6 m). */
const MAX_LENGTH_PX = 10_000;
const PX_PER_UNIT = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 } as const;

/** CSS pixels of a `length` option's value: a number of pixels or `<n>px|in|cm|mm`. */
export function lengthToPx(value: string | number): number {
  if (typeof value === "number") return value;
  const match = value.trim().match(/^(\d+(?:\.\d+)?)(px|in|cm|mm)?$/);
  if (!match?.[1]) return Number.NaN;
  return Number(match[1]) * PX_PER_UNIT[(match[2] ?? "px") as keyof typeof PX_PER_UNIT];
}

const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;

function coerceNumber(name: string, spec: Extract<OptionSpec, { type: "number" }>, raw: unknown): number {
  const value = single(name, raw);
  // Decimal text only: Number() would also take "0x5", "1e3", "Infinity" and whitespace.
  const n =
    typeof value === "number" ? value : typeof value === "string" && DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) throw invalid(name, "must be a number");
  if (spec.integer && !Number.isInteger(n)) throw invalid(name, "must be a whole number");
  if (n < spec.min || n > spec.max) throw invalid(name, `must be between ${spec.min} and ${spec.max}`);
  return n;
}

function coerceString(name: string, maxLength: number, raw: unknown): string {
  const value = single(name, raw);
  if (typeof value !== "string") {
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    throw invalid(name, "must be a string");
  }
  if (value.length > maxLength) throw invalid(name, `must be at most ${maxLength} characters`);
  return value;
}

/** Checks and converts one value against its spec (form strings included); throws `InvalidOptions` naming `name`. */
export function coerceOption(name: string, spec: OptionSpec, raw: unknown): unknown {
  switch (spec.type) {
    case "boolean":
      return coerceBoolean(name, raw);
    case "number":
      return coerceNumber(name, spec, raw);
    case "string":
      return coerceString(name, spec.maxLength, raw);
    case "enum": {
      const text = coerceString(name, 64, raw).trim();
      const lower = text.toLowerCase();
      const synonym = Object.entries(spec.synonyms ?? {}).find(([k]) => k.toLowerCase() === lower)?.[1];
      const match = synonym ?? spec.values.find((v) => v.toLowerCase() === lower);
      if (!match) throw invalid(name, `must be one of ${spec.values.join(", ")}`);
      return match;
    }
    case "strings": {
      const list = Array.isArray(raw) ? raw : [raw];
      if (list.length > spec.maxItems) throw invalid(name, `takes at most ${spec.maxItems} values`);
      return list.map((item) => coerceString(name, spec.maxLength, item));
    }
    case "length": {
      const value = single(name, raw);
      if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_LENGTH_PX) return value;
      if (typeof value === "string") {
        const v = value.trim();
        if (/^\d+(\.\d+)?$/.test(v) && Number(v) <= MAX_LENGTH_PX) return Number(v);
        if (/^\d+(\.\d+)?(px|in|cm|mm)$/.test(v) && lengthToPx(v) <= MAX_LENGTH_PX) return v;
      }
      throw invalid(name, `must be a number of pixels or a length like 10mm, 1cm, 0.5in, 20px, at most ${MAX_LENGTH_PX} px`);
    }
  }
}

function parseUrl(raw: unknown): string {
  if (typeof raw !== "string") {
    throw new RenderError("UrlWasNotAStringError", "Option url must be a string");
  }
  const text = raw.trim();
  if (text === "") throw new RenderError("NoUrlSupplied", "Option url is empty; give url or html");
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text) && !/^[^:/]+:\d+/.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new RenderError("InvalidURLError", `The url "${text.slice(0, 200)}" is not a valid address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RenderError("InvalidURLError", `Only http and https addresses can be rendered, not ${url.protocol}`);
  }
  if (!url.hostname) throw new RenderError("InvalidURLError", "The url has no host name");
  return url.href;
}

/**
 * Validates a request: camelCase and snake_case names, aliases, string coercion (form bodies),
 * bounds, defaults. Throws `RenderError` with the spec's codes; unknown names are reported, not refused.
 */
export function parseOptions(input: Record<string, unknown>, ctx: ParseContext, index = indexTable(ctx.table)): ParsedOptions {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new RenderError("InvalidOptions", "Render options must be an object");
  }
  const out: Record<string, unknown> = {};
  const seenAs = new Map<string, string>();
  const ignored: string[] = [];
  for (const [sent, raw] of Object.entries(input)) {
    const name = index.get(camelize(sent));
    const spec = name ? ctx.table[name] : undefined;
    if (!name || !spec || spec.serverOnly) {
      ignored.push(sent);
      continue;
    }
    if (raw === undefined || raw === null) continue;
    if (name === "url" || name === "html" || name === "format") {
      out[name] = single(name, raw);
    } else {
      const value = coerceOption(name, spec, raw);
      const previous = seenAs.get(name);
      if (previous !== undefined && JSON.stringify(out[name]) !== JSON.stringify(value)) {
        throw invalid(name, `was given twice with different values (${previous}, ${sent})`);
      }
      out[name] = value;
    }
    seenAs.set(name, sent);
  }

  const hasUrl = out.url !== undefined && out.url !== "";
  const hasHtml = out.html !== undefined && out.html !== "";
  if (hasUrl && hasHtml) throw new RenderError("InvalidOptions", "Give either url or html, not both");
  if (!hasUrl && !hasHtml) {
    if (out.url !== undefined) parseUrl(out.url);
    throw new RenderError("NoUrlSupplied", "One of url or html is required");
  }
  if (hasUrl) out.url = parseUrl(out.url);
  else {
    delete out.url;
    const htmlSpec = ctx.table.html;
    if (typeof out.html !== "string") throw new RenderError("HTMLProcessError", "Option html must be a string");
    if (htmlSpec?.type === "string" && out.html.length > htmlSpec.maxLength) {
      throw invalid("html", `must be at most ${htmlSpec.maxLength} characters`);
    }
  }

  const formatRaw = out.format === undefined ? "png" : coerceString("format", 16, out.format).trim().toLowerCase();
  const synonyms = ctx.formatSynonyms ?? {};
  const format = synonyms[formatRaw] ?? formatRaw;
  if (!ctx.formats.includes(format)) {
    throw invalid("format", `"${formatRaw}" is not available; installed formats: ${ctx.formats.join(", ") || "none"}`);
  }
  out.format = format;

  for (const [name, spec] of Object.entries(ctx.table)) {
    if (out[name] === undefined && "default" in spec && spec.default !== undefined) out[name] = spec.default;
  }
  if (out.retina === true && seenAs.get("deviceScaleFactor") === undefined) out.deviceScaleFactor = 2;
  return { options: out as ParsedOptions["options"], ignored, sent: Object.fromEntries(seenAs) };
}
