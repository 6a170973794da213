import { bool, num, str, strings } from "./spec.js";

/** Resource-type blocking options and the `ResourceKind`s each one blocks. */
export const BLOCK_KINDS = {
  blockImages: ["image"],
  blockFonts: ["font"],
  blockMedias: ["media"],
  blockStyles: ["stylesheet"],
  blockScripts: ["script"],
  blockFetch: ["fetch"],
  blockXhr: ["xhr"],
} as const;

/** Default and bounds of `max_height` (CSS pixels of a full-page capture). */
export const MAX_HEIGHT = { default: 20_000, max: 60_000 } as const;

/**
 * Page preparation options (issue 6): consent banners, blocking, lazy loading, tall pages and
 * interactions. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md).
 */
export const PAGE_OPTIONS = {
  hideCookieBanners: bool(
    "Hide consent banners: known consent managers are declined and closed (autoconsent); other fixed banners with consent wording are hidden.",
    { default: false },
  ),
  clickAccept: bool(
    "Accept consent banners: click their accept button (known consent managers first, then banners with consent wording).",
    { default: false, aliases: ["accept_cookies"] },
  ),
  blockAds: bool("Block ad and tracker requests and hide ad elements, with the server's filter lists.", { default: false }),
  blockUrls: strings(
    "Block requests whose address matches a pattern; repeatable. `*` matches any run of characters. Without scheme or path (`ads.example.com`, `*.doubleclick.net`) a pattern matches that host and its subdomains; with a path or scheme (`example.com/track*`, `https://cdn.example.com/ads/*`) it matches the whole address (any of http, https, ws, wss when no scheme is given). Hosts match case-insensitively; the page itself is never blocked. At most 32,768 characters for all patterns together.",
    { maxItems: 100, maxLength: 2048 },
  ),
  blockImages: bool("Block image requests.", { default: false }),
  blockFonts: bool("Block web font requests.", { default: false }),
  blockMedias: bool("Block audio and video requests.", { default: false, aliases: ["block_media"] }),
  blockStyles: bool("Block style sheet requests.", { default: false }),
  blockScripts: bool("Block script requests (inline scripts still run; see `disable_js`).", { default: false }),
  blockFrames: bool("Block iframes and frames from loading: their documents are never requested.", { default: false }),
  blockFetch: bool("Block `fetch()` requests of the page.", { default: false }),
  blockXhr: bool("Block `XMLHttpRequest` requests of the page.", { default: false }),
  disableJs: bool("Run none of the page's JavaScript; the `js` option is then refused.", { default: false }),

  skipScroll: bool("Skip the lazy-load pre-scroll of full-page captures and PDFs.", { default: false }),
  scrollIncrement: num("Pixels per step of the lazy-load pre-scroll; default: the viewport height.", {
    min: 100,
    max: 2_000,
    integer: true,
  }),
  scrollDelay: num("Milliseconds to wait after each step of the lazy-load pre-scroll.", {
    min: 0,
    max: 5_000,
    integer: true,
    default: 100,
  }),
  maxHeight: num(
    "Largest height of a full-page capture in CSS pixels; a taller page is cut there and the result says `truncated: true`.",
    { min: 100, max: MAX_HEIGHT.max, integer: true, default: MAX_HEIGHT.default },
  ),

  clickAll: strings("CSS selector whose every match is clicked before capture (after `click`); repeatable, in order.", {
    maxItems: 20,
    maxLength: 1024,
  }),
  hover: strings("CSS selector to hover before capture (its first visible match); repeatable, the last one stays hovered.", {
    maxItems: 20,
    maxLength: 1024,
  }),
  scrollTo: str(
    "Scroll here before capture: digits (`1500`) scroll the window to that offset from the top in CSS pixels; anything else is a CSS selector whose first match is scrolled to the top of the viewport.",
    { maxLength: 1024 },
  ),
  pressEscape: bool("Press Escape before capture (closes many dialogs).", { default: false }),
  failIfSelectorPresent: bool(
    "Fail when an element matching `wait_for` appears within `wait_timeout`, or one matching `selector` is present at capture.",
    { default: false },
  ),
} as const;
