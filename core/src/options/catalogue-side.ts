import type { OptionRule } from "../contracts/option-rule.js";
import { bool } from "./spec.js";

/** Side render options (issue 11): save_cookies, save_headers, save_links, save_resource_info, save_mhtml. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md). */
export const SIDE_OPTIONS = {
  saveMhtml: bool(
    "Also store Chromium's MHTML snapshot of the page (after its preparation, like `format: mhtml`); adds `mhtmlUrl` to the result, on any format. With `format: mhtml` it is the render itself.",
    { default: false },
  ),
  saveCookies: bool(
    "Also store the page's cookies at capture time as a JSON array (name, value, domain, path, expires in seconds since the epoch or -1 for a session cookie, httpOnly, secure, sameSite: `Strict`, `Lax` or `None`, `Lax` when the cookie did not say, as Chromium applies it), set by the `cookies` option, the responses and the page's scripts, httpOnly ones included; at most 1,000. Adds `cookiesUrl`, on any format. The file holds credentials: the server serves it only with the project's secret key (`Authorization: Bearer`), never cached.",
    { default: false },
  ),
  saveHeaders: bool(
    "Also store the main document's response as JSON: final address after redirects, status and headers (lower-case names, repeated ones such as `set-cookie` joined by a newline). For `html` input the file says there is no HTTP response. Adds `headersUrl`, on any format. Like the cookie file (`set-cookie` holds the same cookies), the server serves it only with the project's secret key.",
    { default: false },
  ),
  saveLinks: bool(
    "Also store the page's links at capture time as a JSON array of `{ href, text, rel }` from `a[href]` and `area[href]` of the main document: absolute addresses, deduplicated by address, no `javascript:` links, at most 5,000. Adds `linksUrl`, on any format.",
    { default: false },
  ),
  saveResourceInfo: bool(
    "Also store the requests the page made, from before navigation to capture time, as a JSON array of `{ url, type, method, status, mimeType, size, fromCache, finished, failed, blocked, reason }` (`size`: bytes received; `blocked`: by the `block_*` options or the address policy); at most 2,000 requests (`resourceInfoOmitted` counts the rest). Requests made inside a cross-site iframe are not listed (the iframe's own document is). Adds `resourceInfoUrl`, on any format.",
    { default: false },
  ),
} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const SIDE_RULES: readonly OptionRule[] = [];
