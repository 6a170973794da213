import type { RequestFilter, RequestInfo, ResourceKind } from "../contracts/engine.js";
import { RenderError } from "../errors.js";
import type { RenderOptions } from "../options/catalogue.js";
import { BLOCK_KINDS } from "../options/catalogue-page.js";
import type { AdBlocker } from "./adblock/index.js";

/** Longest `block_urls` pattern (the option table's bound, repeated for direct callers). */
const MAX_PATTERN_LENGTH = 2_048;
/** Schemes a pattern may name; other requests (data:, blob:...) never match `block_urls`. */
const SCHEMES = new Set(["http", "https", "ws", "wss"]);
/** `scheme://rest`: the scheme part of a pattern. */
const WITH_SCHEME = /^([^:/?#]*):\/\/(.*)$/s;

function badPattern(pattern: string, why: string): RenderError {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const clean = pattern.replace(/[\u0000-\u001f\u007f]/g, "?");
  const shown = clean.length > 60 ? `${clean.slice(0, 60)}…` : clean;
  return new RenderError("InvalidOptions", `Option block_urls: "${shown}" ${why}`, { details: { option: "block_urls" } });
}

/** Regular-expression source of a literal run. */
function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Source matching `glob` (only `*` is special) in full, without catastrophic backtracking: each
 * middle literal is found at its first occurrence and committed (a lookahead plus backreference
 * acts as an atomic group), which is always a valid choice for `*`-only globs. `group` numbers
 * the capture groups after those of the caller.
 */
function globSource(glob: string, group = 1): string {
  const parts = glob.split("*");
  if (parts.length === 1) return escapeLiteral(glob);
  const first = parts[0] ?? "";
  const last = parts.at(-1) ?? "";
  let source = escapeLiteral(first);
  for (const middle of parts.slice(1, -1)) {
    if (!middle) continue;
    source += `(?=([\\s\\S]*?${escapeLiteral(middle)}))\\${group++}`;
  }
  return `${source}[\\s\\S]*${escapeLiteral(last)}`;
}

/** A compiled pattern: `host` patterns match `hostname:port`, `url` patterns the address. */
interface Compiled {
  target: "host" | "url";
  regex: RegExp;
}

/** `host[:port]` pattern → regex over `hostname:port` (the host or any subdomain of it). */
function compileHost(pattern: string): RegExp {
  const port = pattern.match(/:(\d+|\*)$/);
  const host = port ? pattern.slice(0, port.index) : pattern;
  const portSource = port?.[1] && port[1] !== "*" ? port[1] : "\\d+";
  const hostSource = host === "*" ? "[\\s\\S]*" : `(?:[^:]*\\.)?${globSource(host.toLowerCase())}`;
  return new RegExp(`^${hostSource}:${portSource}$`);
}

/** Pattern with a scheme or a path → regex over `scheme://host[:port]/path?query`. */
function compileUrl(pattern: string): RegExp {
  const scheme = pattern.match(WITH_SCHEME);
  const schemeSource = scheme ? (scheme[1] === "*" ? "(?:https?|wss?)" : (scheme[1] ?? "").toLowerCase()) : "(?:https?|wss?)";
  let rest = scheme ? (scheme[2] ?? "") : pattern;
  const slash = rest.indexOf("/");
  // `https://ads.example.com`: the host and every path under it.
  if (slash < 0) rest = `${rest}/*`;
  const at = slash < 0 ? rest.length - 2 : slash;
  const normalised = `${rest.slice(0, at).toLowerCase()}${rest.slice(at)}`;
  return new RegExp(`^${schemeSource}://${globSource(normalised)}$`);
}

/** Checks one pattern; returns it compiled. */
function compile(pattern: string): Compiled {
  if (pattern.length === 0 || pattern.trim().length === 0) throw badPattern(pattern, "is empty");
  if (pattern.length > MAX_PATTERN_LENGTH) throw badPattern(pattern, `is longer than ${MAX_PATTERN_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(pattern)) throw badPattern(pattern, "contains whitespace or control characters");
  const scheme = pattern.match(WITH_SCHEME);
  if (scheme) {
    const name = (scheme[1] ?? "").toLowerCase();
    if (name !== "*" && !SCHEMES.has(name)) throw badPattern(pattern, "must use http, https, ws, wss or * as its scheme");
    if (!scheme[2] || scheme[2].startsWith("/")) throw badPattern(pattern, "has no host");
    return { target: "url", regex: compileUrl(pattern) };
  }
  if (pattern.includes("://")) throw badPattern(pattern, "has a malformed scheme");
  if (pattern.includes("/")) {
    if (pattern.startsWith("/")) throw badPattern(pattern, "has no host (start it with a host, or with * for any host)");
    return { target: "url", regex: compileUrl(pattern) };
  }
  const host = pattern.replace(/:(\d+|\*)$/, "");
  if (/[?#@\\]/.test(host) || (host.includes(":") && !/^\[[0-9a-fA-F:.*]+\]$/.test(host))) {
    throw badPattern(pattern, "is not a host name (add a path to match whole addresses)");
  }
  return { target: "host", regex: compileHost(pattern) };
}

/** Checks `block_urls` patterns; throws `InvalidOptions` naming the option. */
export function checkBlockPatterns(patterns: readonly string[]): void {
  for (const pattern of patterns) compile(pattern);
}

/** Default port of a scheme `block_urls` matches. */
function effectivePort(url: URL): string {
  if (url.port) return url.port;
  return url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80";
}

/** Matcher of compiled `block_urls` patterns; undefined for none. */
function urlMatcher(patterns: readonly string[]): ((address: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const compiled = patterns.map(compile);
  const hosts = compiled.filter((c) => c.target === "host").map((c) => c.regex);
  const urls = compiled.filter((c) => c.target === "url").map((c) => c.regex);
  return (address) => {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return false;
    }
    if (!SCHEMES.has(url.protocol.slice(0, -1))) return false;
    const host = `${url.hostname}:${effectivePort(url)}`;
    if (hosts.some((regex) => regex.test(host))) return true;
    if (urls.length === 0) return false;
    const full = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    return urls.some((regex) => regex.test(full));
  };
}

/** Resource kinds the `block_<type>` options of a request block. */
function blockedKinds(options: RenderOptions): Set<ResourceKind> {
  const kinds = new Set<ResourceKind>();
  for (const [option, blocked] of Object.entries(BLOCK_KINDS) as [keyof typeof BLOCK_KINDS, readonly ResourceKind[]][]) {
    if (options[option]) for (const kind of blocked) kinds.add(kind);
  }
  return kinds;
}

/** Matcher of `block_url_keywords` (any keyword in the address, case-insensitive); undefined for none. */
function keywordMatcher(keywords: readonly string[]): ((address: string) => boolean) | undefined {
  const lower = keywords.map((k) => k.trim().toLowerCase()).filter((k) => k !== "");
  if (lower.length === 0) return undefined;
  return (address) => {
    const text = address.toLowerCase();
    return lower.some((keyword) => text.includes(keyword));
  };
}

/**
 * The request filter for `block_urls`, `block_url_keywords`, the `block_<type>` options,
 * `block_frames`, `block_sockets` (where an engine's interception sees WebSockets; the page
 * script of `block_sockets` covers the rest) and ad blocking; undefined when nothing is blocked
 * (no interception at all). Never blocks the main document.
 */
export function blockingFilter(options: RenderOptions, adblock?: AdBlocker): RequestFilter | undefined {
  const matches = urlMatcher(options.blockUrls ?? []);
  const keywords = keywordMatcher(options.blockUrlKeywords ?? []);
  const kinds = blockedKinds(options);
  if (options.blockSockets) kinds.add("websocket");
  const frames = options.blockFrames;
  if (!matches && !keywords && kinds.size === 0 && !frames && !adblock) return undefined;
  return (request: RequestInfo) => {
    if (request.mainDocument) return false;
    if (kinds.has(request.kind)) return true;
    if (frames && request.kind === "document") return true;
    if (matches?.(request.url)) return true;
    if (keywords?.(request.url)) return true;
    if (adblock) {
      try {
        return adblock.blocks(request);
      } catch {
        // A failing filter list must not break the page: the request goes through.
        return false;
      }
    }
    return false;
  };
}
