import type { AddressChecker } from "../contracts/address.js";
import type { CookieSpec, PageSettings, PageTarget } from "../contracts/page-settings.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { parseProxy } from "../network/upstream-proxy.js";
import type { AdBlocker } from "../prepare/adblock/index.js";
import { blockingFilter } from "../prepare/blocking.js";
import { consentInitScript, consentMode } from "../prepare/consent/index.js";
import { pageOptionScripts } from "../prepare/page-scripts.js";

function badOption(option: string, why: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${why}`, { details: { option } });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** RFC 6265 cookie-name: an HTTP token. */
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** A cookie Domain: a host name (optionally with a leading dot) or an IPv4 address. */
const HOST_NAME = /^\.?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Headers the browser owns: a request may not set them (the connection, framing and target). */
const BROWSER_HEADERS = /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*)$/;

/** `Name=Value` or `Name: Value` lines (and JSON objects) → a header record. */
export function parseHeaders(lines: readonly string[] = []): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const match = line.match(/^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*[=:]\s*(.*)$/);
    if (!match?.[1]) throw badOption("headers", `entry "${line.slice(0, 60)}" is not Name=Value`);
    if (CONTROL_BUT_TAB.test(match[2] ?? "")) throw badOption("headers", "values must not contain control characters");
    const name = match[1].toLowerCase();
    if (BROWSER_HEADERS.test(name)) throw badOption("headers", `cannot set ${name}: the browser sets it`);
    headers[name] = (match[2] ?? "").trim();
  }
  return headers;
}

/** Recent Chrome user agents for the catalogue's presets (`user_agent: desktop | mobile | random`). */
const USER_AGENTS = {
  desktop: [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
  ],
  mobile: ["Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"],
} as const;

/** The user agent to send: a preset's string, the request's own, or undefined (the browser's). */
export function userAgentFor(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const preset = value.trim().toLowerCase();
  if (preset === "desktop") return USER_AGENTS.desktop[0];
  if (preset === "mobile") return USER_AGENTS.mobile[0];
  if (preset === "random") {
    const all = [...USER_AGENTS.desktop, ...USER_AGENTS.mobile];
    return all[Math.floor(Math.random() * all.length)];
  }
  if (CONTROL.test(value)) throw badOption("user_agent", "must not contain control characters");
  return value;
}

/** `name=value; Domain=..; Path=..; HttpOnly; Secure; SameSite=..` → cookie specs. */
export function parseCookies(lines: readonly string[] = []): CookieSpec[] {
  return lines.map((line) => {
    if (CONTROL.test(line)) throw badOption("cookies", "must not contain control characters");
    const [pair = "", ...attrs] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq <= 0) throw badOption("cookies", `entry "${line.slice(0, 60)}" is not name=value`);
    const cookie: CookieSpec = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
    if (!COOKIE_NAME.test(cookie.name)) throw badOption("cookies", `"${cookie.name.slice(0, 60)}" is not a cookie name`);
    for (const attr of attrs) {
      const eqAt = attr.indexOf("=");
      const k = (eqAt < 0 ? attr : attr.slice(0, eqAt)).trim();
      const v = eqAt < 0 ? "" : attr.slice(eqAt + 1).trim();
      const key = k.toLowerCase();
      if (key === "domain") {
        if (!HOST_NAME.test(v)) throw badOption("cookies", `Domain "${v.slice(0, 60)}" is not a host name`);
        cookie.domain = v;
      } else if (key === "path") {
        if (!v.startsWith("/")) throw badOption("cookies", "Path must start with /");
        cookie.path = v;
      } else if (key === "httponly") cookie.httpOnly = true;
      else if (key === "secure") cookie.secure = true;
      else if (key === "samesite") {
        const s = v.toLowerCase();
        if (s !== "strict" && s !== "lax" && s !== "none") throw badOption("cookies", `SameSite must be Strict, Lax or None`);
        cookie.sameSite = s === "strict" ? "Strict" : s === "lax" ? "Lax" : "None";
      }
    }
    return cookie;
  });
}

/** Time zones found valid: making an `Intl.DateTimeFormat` to check one costs ~0.5 ms a render. */
const knownTimezones = new Set<string>();
/** Valid time zones remembered at most (there are about 600). */
const MAX_KNOWN_TIMEZONES = 1_000;

function checkTimezone(tz: string): string {
  if (knownTimezones.has(tz)) return tz;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
  } catch {
    throw badOption("tz", `"${tz.slice(0, 40)}" is not an IANA time zone`);
  }
  if (knownTimezones.size < MAX_KNOWN_TIMEZONES) knownTimezones.add(tz);
  return tz;
}

function checkLocale(lang: string): string {
  const first = lang.split(",")[0]?.split(";")[0]?.trim() ?? "";
  try {
    return Intl.getCanonicalLocales(first)[0] ?? "en-US";
  } catch {
    throw badOption("accept_lang", `"${lang.slice(0, 40)}" is not a language tag`);
  }
}

/** A blank string option counts as absent (clients send `proxy=` for "none"). */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function checkAuthorization(value: string | undefined): string | undefined {
  if (present(value) === undefined) return undefined;
  if (CONTROL_BUT_TAB.test(value as string)) throw badOption("authorization", "must not contain control characters");
  return (value as string).trim();
}

function checkPlatform(value: string | undefined): string | undefined {
  if (present(value) === undefined) return undefined;
  if (CONTROL.test(value as string)) throw badOption("platform", "must not contain control characters");
  return (value as string).trim();
}

/** `navigator.userAgentData.platform` for a `navigator.platform` value, when it names a known system. */
function clientHintPlatform(platform: string): string | undefined {
  const known: [RegExp, string][] = [
    [/^win/i, "Windows"],
    [/^mac/i, "macOS"],
    [/^(iphone|ipad|ipod)/i, "iOS"],
    [/^cros/i, "Chrome OS"],
    [/^(android|linux arm|linux aarch)/i, "Android"],
    [/^linux/i, "Linux"],
  ];
  return known.find(([test]) => test.test(platform))?.[1];
}

/**
 * An init script (run in every frame before the page's scripts) making `navigator.platform`
 * answer `platform`, and `navigator.userAgentData` the matching client-hint platform. The
 * prototype getters are replaced by proxies of the originals, so they still look native.
 */
export function platformScript(platform: string): string {
  const hint = clientHintPlatform(platform);
  return `(() => {
  const value = ${JSON.stringify(platform)}, hint = ${JSON.stringify(hint ?? null)};
  const wrap = (proto, name, make) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, name);
    if (!d) return;
    const key = d.get ? "get" : "value";
    Object.defineProperty(proto, name, { ...d, [key]: new Proxy(d[key], { apply: make }) });
  };
  wrap(self.Navigator && Navigator.prototype, "platform", () => value);
  if (hint === null || !self.NavigatorUAData) return;
  const P = NavigatorUAData.prototype;
  wrap(P, "platform", () => hint);
  wrap(P, "toJSON", (f, that, args) => ({ ...Reflect.apply(f, that, args), platform: hint }));
  wrap(P, "getHighEntropyValues", (f, that, args) =>
    Reflect.apply(f, that, args).then((v) => ({ ...v, platform: hint })));
})();`;
}

/**
 * Checks the free-text page options when the request is parsed, so a bad value is a 400 before
 * anything is queued (the same functions build the page settings later).
 */
export function checkPageSettings(options: RenderOptions): void {
  parseHeaders(options.headers);
  const cookies = parseCookies(options.cookies);
  if (options.url === undefined) {
    const bare = cookies.find((c) => !c.domain);
    if (bare) throw badOption("cookies", `cookie ${bare.name} needs a Domain when rendering html`);
  }
  checkLocale(options.acceptLang);
  checkTimezone(options.tz);
  userAgentFor(options.userAgent);
  checkAuthorization(options.authorization);
  checkPlatform(options.platform);
  if (present(options.proxy) !== undefined) parseProxy(options.proxy as string);
}

/** The target of a request. */
export function pageTarget(options: RenderOptions): PageTarget {
  return options.url !== undefined ? { url: options.url } : { html: options.html ?? "" };
}

/**
 * Turns request options into engine page settings (validating the free-text ones). `adblock` is
 * the loaded filter engine when `block_ads` is on and a list could be loaded.
 */
export function pageSettings(options: RenderOptions, policy: AddressChecker, adblock?: AdBlocker): PageSettings {
  const headers = parseHeaders(options.headers);
  if (options.acceptLang) headers["accept-language"] = options.acceptLang;
  const consent = consentMode(options);
  const requestFilter = blockingFilter(options, adblock);
  const platform = checkPlatform(options.platform);
  const initScripts = [
    ...(platform ? [platformScript(platform)] : []),
    ...pageOptionScripts(options),
    ...(consent ? [consentInitScript(consent)] : []),
  ];
  const authorization = checkAuthorization(options.authorization);
  const proxy = present(options.proxy);
  return {
    ...(requestFilter ? { requestFilter } : {}),
    ...(initScripts.length > 0 ? { initScripts } : {}),
    ...(authorization && options.url !== undefined
      ? { authorization: { origin: new URL(options.url).origin, value: authorization } }
      : {}),
    ...(options.latitude !== undefined && options.longitude !== undefined
      ? { geolocation: { latitude: options.latitude, longitude: options.longitude, accuracy: options.accuracy ?? 0 } }
      : {}),
    ...(proxy ? { proxy: parseProxy(proxy) } : {}),
    width: options.width,
    height: options.height,
    deviceScaleFactor: options.deviceScaleFactor,
    userAgent: userAgentFor(options.userAgent),
    headers,
    cookies: parseCookies(options.cookies),
    locale: checkLocale(options.acceptLang),
    timezone: checkTimezone(options.tz),
    colorScheme: options.darkMode ? "dark" : "light",
    reducedMotion: options.reducedMotion,
    javaScriptEnabled: !options.disableJs,
    waitUntil: options.waitUntil,
    timeoutMs: options.timeout,
    policy,
  };
}
