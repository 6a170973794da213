import type { OptionRule } from "../contracts/option-rule.js";
import { MAX_PROXY_LENGTH } from "../network/upstream-proxy.js";
import { num, str } from "./spec.js";

/** Longest accepted `platform` value. */
export const MAX_PLATFORM_LENGTH = 64;

/** Options about the target site (issue 11): authorization, platform, geolocation, proxy. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md). */
export const TARGET_OPTIONS = {
  authorization: str(
    "`Authorization` header value (`Bearer ...`, `Basic ...`) sent with every request to the target's own origin (scheme, host and port of `url`), its redirects to that origin included, on every format. Requests to other origins (other hosts' images, scripts, iframes, a redirect elsewhere) never carry it. Needs `url`; not with an `Authorization` entry in `headers` (both would set the same header).",
    { maxLength: 8192, secret: true },
  ),
  platform: str(
    "Value of `navigator.platform` (`Win32`, `MacIntel`, `Linux x86_64`, `iPhone`...) in the page and in all its frames; known values also set `navigator.userAgentData.platform` (`Windows`, `macOS`, `Linux`, `Android`, `iOS`, `Chrome OS`). Page scripts see it; workers and the `Sec-CH-UA-Platform` request header keep the browser's. Not with `disable_js`.",
    { maxLength: MAX_PLATFORM_LENGTH },
  ),
  latitude: num(
    "Emulated latitude in degrees (-90 to 90), with `longitude`: the page's `navigator.geolocation` answers this position and the geolocation permission is granted. Chromium offers geolocation to secure pages only (https, localhost). Not with `disable_js`.",
    { min: -90, max: 90 },
  ),
  longitude: num("Emulated longitude in degrees (-180 to 180), with `latitude`.", { min: -180, max: 180 }),
  accuracy: num("Accuracy of the emulated position in metres (default 0), with `latitude` and `longitude`.", {
    min: 0,
    max: 1_000_000,
  }),
  proxy: str(
    "HTTP proxy for all of the page's traffic: `[user:pass@]host:port`, also with `http://` (then the port defaults to 80); credentials may be percent-encoded and go as `Proxy-Authorization: Basic`. The address rules still apply: each request's destination is checked before it is sent to the proxy, and the proxy's own address is checked like any target (a proxy on a private address is refused unless the server allows it). https and socks proxies are refused; an unreachable proxy fails the render.",
    { maxLength: MAX_PROXY_LENGTH, secret: true },
  ),
} as const;

/** A string option that is present and not blank. */
const given = (value: unknown): boolean => typeof value === "string" && value.trim() !== "";

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const TARGET_RULES: readonly OptionRule[] = [
  {
    option: "authorization",
    when: (o) => given(o.authorization) && o.url === undefined,
    why: "needs url: it is sent to the target's own origin only, and supplied html has none",
  },
  {
    option: "authorization",
    when: (o) => given(o.authorization) && (o.headers ?? []).some((h) => /^\s*authorization\s*[=:]/i.test(h)),
    why: "cannot be combined with an Authorization entry in headers (both set the Authorization header)",
  },
  {
    option: "headers",
    when: (o) => o.url === undefined && (o.headers ?? []).some((h) => !/^\s*accept-language\s*[=:]/i.test(h)),
    why: "needs url: they are sent to the target's own origin only, and supplied html has none",
  },
  {
    option: "latitude",
    when: (o) => o.latitude !== undefined && o.longitude === undefined,
    why: "needs longitude: a position has both",
  },
  {
    option: "longitude",
    when: (o) => o.longitude !== undefined && o.latitude === undefined,
    why: "needs latitude: a position has both",
  },
  {
    option: "accuracy",
    when: (o) => o.accuracy !== undefined && (o.latitude === undefined || o.longitude === undefined),
    why: "needs latitude and longitude: it is the accuracy of that position",
  },
  {
    option: "latitude",
    when: (o) => o.latitude !== undefined && o.disableJs,
    why: "cannot be used with disable_js: only page scripts can read the position",
  },
  {
    option: "platform",
    when: (o) => given(o.platform) && o.disableJs,
    why: "cannot be used with disable_js: only page scripts can read navigator.platform",
  },
];
