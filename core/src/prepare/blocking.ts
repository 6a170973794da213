import type { RequestFilter, RequestInfo, ResourceKind } from "../contracts/page-settings.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { BLOCK_KINDS } from "../options/catalogue-page.js";
import type { AdBlocker } from "./adblock/index.js";

/** Longest `block_urls` pattern (the option table's bound, repeated for direct callers). */
const MAX_PATTERN_LENGTH = 2_048;
/**
 * Most characters all `block_urls` patterns may have together. Matching costs time per request
 * and per pattern; with this bound a page's requests are matched in well under a millisecond each
 * whatever the patterns. Real block lists are a few hosts and paths, far below it.
 */
export const MAX_BLOCK_PATTERN_CHARS = 32_768;
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

/**
 * A `*`-only glob, matched without regular expressions in time linear in the text: the first and
 * last literal runs must begin and end the text, and each run between them is found at its first
 * occurrence after the previous one (always a valid choice when `*` matches any run).
 */
class Glob {
  private readonly first: string;
  private readonly last: string;
  private readonly middles: readonly string[];
  /** True when the glob has a `*`. */
  readonly wild: boolean;

  constructor(glob: string) {
    const parts = glob.split("*");
    this.wild = parts.length > 1;
    this.first = parts[0] ?? "";
    this.last = this.wild ? (parts.at(-1) ?? "") : "";
    this.middles = parts.slice(1, -1).filter((part) => part !== "");
  }

  /** Whether the glob matches `text` from `start` to its end. */
  matches(text: string, start = 0): boolean {
    if (!this.wild) return text.length - start === this.first.length && text.startsWith(this.first, start);
    const end = text.length - this.last.length;
    let at = start + this.first.length;
    if (at > end || !text.startsWith(this.first, start) || !text.endsWith(this.last)) return false;
    for (const middle of this.middles) {
      const found = text.indexOf(middle, at);
      if (found < 0 || found + middle.length > end) return false;
      at = found + middle.length;
    }
    return true;
  }

  /**
   * Whether the glob matches `host` or one of its parent-domain suffixes (`a.b.example.com`:
   * `b.example.com`, `example.com`, `com`). A suffix starting further left leaves the `*` runs
   * more room, so only the leftmost suffix that begins with the first literal is tried.
   */
  matchesDomainOf(host: string): boolean {
    if (!this.wild) {
      const start = host.length - this.first.length;
      return start === 0 ? host === this.first : start > 0 && host[start - 1] === "." && this.matches(host, start);
    }
    if (host.startsWith(this.first)) return this.matches(host, 0);
    const dot = host.indexOf(`.${this.first}`);
    return dot >= 0 && this.matches(host, dot + 1);
  }
}

/** A checked pattern: `host` patterns match the host and port, `url` patterns the address. */
type Compiled =
  | { target: "host"; host: Glob | "any"; port: string | undefined }
  | { target: "url"; schemes: ReadonlySet<string>; rest: Glob };

/** `host[:port]` pattern: the host (or any subdomain of it) and the port, if one is named. */
function compileHost(pattern: string): Compiled {
  const port = pattern.match(/:(\d+|\*)$/);
  const host = port ? pattern.slice(0, port.index) : pattern;
  return {
    target: "host",
    host: host === "*" ? "any" : new Glob(host.toLowerCase()),
    port: port?.[1] && port[1] !== "*" ? port[1] : undefined,
  };
}

/** Pattern with a scheme or a path: the whole `scheme://host[:port]/path?query`. */
function compileUrl(pattern: string): Compiled {
  const scheme = pattern.match(WITH_SCHEME);
  const named = scheme?.[1] && scheme[1] !== "*" ? scheme[1].toLowerCase() : undefined;
  let rest = scheme ? (scheme[2] ?? "") : pattern;
  const slash = rest.indexOf("/");
  // `https://ads.example.com`: the host and every path under it.
  if (slash < 0) rest = `${rest}/*`;
  const at = slash < 0 ? rest.length - 2 : slash;
  const normalised = `${rest.slice(0, at).toLowerCase()}${rest.slice(at)}`;
  return { target: "url", schemes: named ? new Set([named]) : SCHEMES, rest: new Glob(normalised) };
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
    return compileUrl(pattern);
  }
  if (pattern.includes("://")) throw badPattern(pattern, "has a malformed scheme");
  if (pattern.includes("/")) {
    if (pattern.startsWith("/")) throw badPattern(pattern, "has no host (start it with a host, or with * for any host)");
    return compileUrl(pattern);
  }
  const host = pattern.replace(/:(\d+|\*)$/, "");
  if (/[?#@\\]/.test(host) || (host.includes(":") && !/^\[[0-9a-fA-F:.*]+\]$/.test(host))) {
    throw badPattern(pattern, "is not a host name (add a path to match whole addresses)");
  }
  return compileHost(pattern);
}

/** Checks and compiles `block_urls` patterns (each, and their total size); throws `InvalidOptions` naming the option. */
function compileAll(patterns: readonly string[]): Compiled[] {
  let total = 0;
  for (const pattern of patterns) total += pattern.length;
  if (total > MAX_BLOCK_PATTERN_CHARS) {
    throw new RenderError(
      "InvalidOptions",
      `Option block_urls has ${total.toLocaleString("en-US")} characters in all; at most ${MAX_BLOCK_PATTERN_CHARS.toLocaleString("en-US")} are allowed`,
      { details: { option: "block_urls" } },
    );
  }
  return patterns.map(compile);
}

/** Checks `block_urls` patterns (each, and their total size); throws `InvalidOptions` naming the option. */
export function checkBlockPatterns(patterns: readonly string[]): void {
  compileAll(patterns);
}

/** Default port of a scheme `block_urls` matches. */
function effectivePort(url: URL): string {
  if (url.port) return url.port;
  return url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80";
}

/** Matcher of compiled `block_urls` patterns; undefined for none. */
function urlMatcher(patterns: readonly string[]): ((address: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const compiled = compileAll(patterns);
  return (address) => {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return false;
    }
    const scheme = url.protocol.slice(0, -1);
    if (!SCHEMES.has(scheme)) return false;
    const port = effectivePort(url);
    // Everything after `scheme://`, as url patterns see it.
    const rest = `${url.host}${url.pathname}${url.search}`;
    return compiled.some((c) =>
      c.target === "host"
        ? (c.port === undefined || c.port === port) && (c.host === "any" || c.host.matchesDomainOf(url.hostname))
        : c.schemes.has(scheme) && c.rest.matches(rest),
    );
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
