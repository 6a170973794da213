import type { PageSettings, PageTarget } from "../../index.js";

/** The origin of an address; undefined when it has none (data:, blob:, about:...). */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Headers every browser sends to every host anyway: the caller's value only replaces the
 * browser's own (`accept_lang` arrives as `accept-language`), so it may go everywhere.
 */
const SHARED_HEADERS = new Set(["accept-language"]);

/** Headers that go to one origin only: the target's. */
export interface TargetHeaders {
  /** `scheme://host[:port]` of the target address. */
  origin: string;
  /** Lower-case names. */
  headers: Record<string, string>;
}

/** The headers an engine adds for the caller, split by where they may go. */
export interface PageHeaders {
  /** Sent with every request of the page (the browser's own `accept-language` replaced). */
  everywhere: Record<string, string>;
  /**
   * Sent with the requests to the target's origin only: the `headers` option's entries and
   * `authorization`. Absent when there are none, or when the target is supplied HTML (no origin:
   * the renderer refuses `headers` and `authorization` with html, so only direct engine callers
   * meet this).
   */
  target?: TargetHeaders;
}

/**
 * Splits `settings.headers` and `settings.authorization` by where they may go. A caller's
 * headers (an `Authorization`, a cookie, an API key) go to the site the caller named and to no
 * third party its page loads: images, scripts, frames of other origins and a redirect that
 * leaves the origin never get them.
 */
export function pageHeaders(target: PageTarget, settings: PageSettings): PageHeaders {
  const everywhere: Record<string, string> = {};
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings.headers)) {
    if (SHARED_HEADERS.has(name.toLowerCase())) everywhere[name.toLowerCase()] = value;
    else own[name.toLowerCase()] = value;
  }
  if (settings.authorization) own.authorization = settings.authorization.value;
  const origin = settings.authorization?.origin ?? (target.url === undefined ? undefined : originOf(target.url));
  if (origin === undefined || Object.keys(own).length === 0) return { everywhere };
  return { everywhere, target: { origin, headers: own } };
}

/**
 * The headers an engine continues an intercepted request with for `target` (`pageHeaders`): the
 * request's own plus the target's headers when it goes to the target's origin (replacing the
 * request's own of the same names); without those of them that carry our value when it goes
 * elsewhere (a redirect hop that kept the first request's headers). Undefined: continue the
 * request unchanged.
 */
export function authorizedHeaders(
  url: string,
  headers: Record<string, string>,
  target: TargetHeaders | undefined,
): Record<string, string> | undefined {
  if (!target) return undefined;
  const ours = (name: string) => Object.hasOwn(target.headers, name.toLowerCase());
  if (originOf(url) === target.origin) {
    const merged: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (!ours(name)) merged[name] = value;
    return { ...merged, ...target.headers };
  }
  const carried = Object.keys(headers).filter((name) => ours(name) && headers[name] === target.headers[name.toLowerCase()]);
  if (carried.length === 0) return undefined;
  const rest = { ...headers };
  for (const name of carried) delete rest[name];
  return rest;
}
