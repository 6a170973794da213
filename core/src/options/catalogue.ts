import type { OptionsOf } from "../contracts/option-spec.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { OUTPUT_OPTIONS } from "./catalogue-output.js";
import { PAGE_OPTIONS } from "./catalogue-page.js";
import { SIDE_OPTIONS } from "./catalogue-side.js";
import { STORAGE_OPTIONS } from "./catalogue-storage.js";
import { TARGET_OPTIONS } from "./catalogue-target.js";
import { WAIT_OPTIONS } from "./catalogue-wait.js";
import { XPATH_OPTIONS } from "./catalogue-xpath.js";
import { bool, num, oneOf, str, strings } from "./spec.js";

/**
 * The core's request options (names and defaults of the option catalogue clients send, in camelCase: docs/compatibility.md).
 * `url`, `html` and `format` are parsed specially (spec error codes, formatter registry).
 */
export const CORE_OPTIONS = {
  url: str("Address to render; `http://` is prepended when no scheme is given.", { maxLength: 8192 }),
  html: str("HTML to render instead of an address.", { maxLength: 5 * 1024 * 1024 }),
  format: str("Output format; one of the formats installed plugins provide.", { maxLength: 16, default: "png" }),
  engine: str("Engine to render with (`playwright`, `puppeteer`); default: the first installed.", { maxLength: 32 }),

  width: num("Viewport width in CSS pixels.", { min: 100, max: 4000, integer: true, default: 1280 }),
  height: num("Viewport height in CSS pixels.", { min: 100, max: 4000, integer: true, default: 1024 }),
  fullPage: bool("Capture the whole scrollable page instead of the viewport.", { default: false }),
  selector: str("Capture only the first element matching this CSS selector.", { maxLength: 1024 }),
  failIfSelectorMissing: bool("Fail when `selector` or `wait_for` never matches, instead of capturing the viewport.", {
    default: false,
  }),
  deviceScaleFactor: num("Device pixel ratio.", { min: 1, max: 4, default: 1, aliases: ["dpr"] }),
  retina: bool("Shorthand for `device_scale_factor: 2`.", { default: false }),

  delay: num("Milliseconds to wait after loading, before capture.", { min: 0, max: 30_000, integer: true, default: 0 }),
  timeout: num("Milliseconds allowed for loading the page.", { min: 5_000, max: 100_000, integer: true, default: 30_000 }),
  waitUntil: oneOf("When loading counts as done.", ["domloaded", "loaded", "requestsfinished", "mostrequestsfinished"], {
    default: "loaded",
    synonyms: { load: "loaded", domcontentloaded: "domloaded", networkidle: "requestsfinished" },
  }),
  waitFor: str("CSS selector to wait for before capture.", { maxLength: 1024 }),
  waitToLeave: str("CSS selector to wait to disappear (spinners) before capture.", { maxLength: 1024 }),
  waitTimeout: num("Milliseconds to wait for `wait_for` / `wait_to_leave`.", {
    min: 1_000,
    max: 30_000,
    integer: true,
    default: 30_000,
  }),

  hideSelector: str("Comma-separated CSS selectors to hide (`display: none !important`).", { maxLength: 4096 }),
  click: strings("CSS selector to click before capture; repeat for several, in order.", { maxItems: 20, maxLength: 1024 }),
  css: str("CSS injected into the page.", { maxLength: 256 * 1024 }),
  js: str("JavaScript run in the page after load; top-level `await` allowed.", { maxLength: 256 * 1024 }),

  userAgent: str(
    "User-Agent header and `navigator.userAgent`; or a preset: `desktop`, `mobile` (recent Chrome) or `random` (one of them).",
    { maxLength: 1024 },
  ),
  headers: strings(
    "Extra request header `Name=Value` (also `Name: Value`); repeatable. Sent with every request to the target's own origin (scheme, host and port of `url`), its redirects to that origin included; requests to other origins (other hosts' images, scripts, iframes, a redirect elsewhere) never carry them. Needs `url` (except `Accept-Language`, which goes everywhere). Not `Host`, `Connection` and other headers the browser owns.",
    {
      maxItems: 50,
      maxLength: 8192,
      aliases: ["header"],
      secret: true,
    },
  ),
  cookies: strings("Cookie `name=value[;Domain=..;Path=..;HttpOnly;Secure;SameSite=..]`; repeatable.", {
    maxItems: 50,
    maxLength: 8192,
    aliases: ["cookie"],
    secret: true,
  }),
  darkMode: bool("Emulate `prefers-color-scheme: dark`.", { default: false }),
  reducedMotion: bool("Emulate `prefers-reduced-motion: reduce`.", { default: false }),
  acceptLang: str("Accept-Language header and page locale.", { maxLength: 256, default: "en-US" }),
  tz: str("IANA time zone of the page.", { maxLength: 64, default: "UTC" }),
  failOn4xx: bool("Fail when the page answers 400-499.", { default: false }),
  failOn5xx: bool("Fail when the page answers 500-599.", { default: false }),

  metadata: bool(
    "Add the page's metadata (title, description, Open Graph, Twitter...) to the result as `metadata`; values are cut at 2,048 characters, at most 100 `og*`/`twitter*` fields.",
    {
      default: false,
    },
  ),
  saveHtml: bool("Also store the rendered HTML; adds `htmlUrl` to the result.", { default: false }),
  saveMarkdown: bool("Also store the page as markdown; adds `markdownUrl` (needs the md format).", { default: false }),
  saveMetadata: bool("Also store the metadata as JSON; adds `metadataUrl` and `metadata`.", { default: false }),

  ...PAGE_OPTIONS,
  ...STORAGE_OPTIONS,
  ...SIDE_OPTIONS,
  ...TARGET_OPTIONS,
  ...WAIT_OPTIONS,
  ...OUTPUT_OPTIONS,
  ...XPATH_OPTIONS,
} as const;

/**
 * `RenderOptions`, the parsed core options, is generated from this catalogue into
 * contracts/render-options.ts (by scripts/gen-render-options.mjs), so that contracts need not
 * import the catalogue. `_GeneratedIsCatalogue` fails to compile when the two types differ (a
 * name, a type, an option required or not): then run `npm run docs`.
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Fields<T> = { [K in keyof T]: T[K] };
type Holds<T extends true> = T;
type _GeneratedIsCatalogue = Holds<Same<Fields<OptionsOf<typeof CORE_OPTIONS>>, RenderOptions>>;
