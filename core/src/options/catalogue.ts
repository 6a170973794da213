import { IMAGE_OPTIONS } from "./catalogue-image.js";
import { PAGE_OPTIONS } from "./catalogue-page.js";
import { PDF_OPTIONS } from "./catalogue-pdf.js";
import { SIDE_OPTIONS } from "./catalogue-side.js";
import { STORAGE_OPTIONS } from "./catalogue-storage.js";
import { TARGET_OPTIONS } from "./catalogue-target.js";
import { WAIT_OPTIONS } from "./catalogue-wait.js";
import { XPATH_OPTIONS } from "./catalogue-xpath.js";
import { bool, length, num, type OptionsOf, oneOf, str, strings } from "./spec.js";

/** PDF paper sizes (width × height in mm, portrait). */
export const PAPER_SIZES = {
  A0: [841, 1189],
  A1: [594, 841],
  A2: [420, 594],
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
  A6: [105, 148],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
  Tabloid: [279.4, 431.8],
  Ledger: [431.8, 279.4],
} as const;
export type PaperSize = keyof typeof PAPER_SIZES;

/**
 * The core's request options (names and defaults of options-catalogue.md, in camelCase).
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
    "Extra request header `Name=Value` (also `Name: Value`); repeatable. Not `Host`, `Connection` and other headers the browser owns.",
    {
      maxItems: 50,
      maxLength: 8192,
      aliases: ["header"],
    },
  ),
  cookies: strings("Cookie `name=value[;Domain=..;Path=..;HttpOnly;Secure;SameSite=..]`; repeatable.", {
    maxItems: 50,
    maxLength: 8192,
    aliases: ["cookie"],
  }),
  darkMode: bool("Emulate `prefers-color-scheme: dark`.", { default: false }),
  reducedMotion: bool("Emulate `prefers-reduced-motion: reduce`.", { default: false }),
  acceptLang: str("Accept-Language header and page locale.", { maxLength: 256, default: "en-US" }),
  tz: str("IANA time zone of the page.", { maxLength: 64, default: "UTC" }),
  failOn4xx: bool("Fail when the page answers 400-499.", { default: false }),
  failOn5xx: bool("Fail when the page answers 500-599.", { default: false }),

  quality: num("JPEG, WebP and AVIF quality.", { min: 1, max: 100, integer: true, default: 80 }),
  transparent: bool("Transparent background where the page sets none (png, webp, avif).", { default: false }),
  thumbWidth: num(
    "Output width in pixels: alone, scales keeping the aspect ratio (never enlarging); with `thumb_height`, crops to exactly that box, keeping the top.",
    { min: 1, max: 16_384, integer: true },
  ),
  thumbHeight: num(
    "Output height in pixels: alone, scales keeping the aspect ratio (never enlarging); with `thumb_width`, crops to exactly that box, keeping the top.",
    { min: 1, max: 16_384, integer: true },
  ),

  pdfPageSize: oneOf("PDF paper size.", ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Ledger", "Tabloid"], {
    default: "A4",
  }),
  pdfPageWidth: num("PDF page width in CSS pixels (overrides `pdf_page_size`).", { min: 100, max: 4000, integer: true }),
  pdfPageHeight: num("PDF page height in CSS pixels (overrides `pdf_page_size`).", { min: 100, max: 4000, integer: true }),
  pdfOrientation: oneOf("PDF orientation.", ["portrait", "landscape"], { default: "portrait" }),
  pdfMargin: oneOf("PDF margins preset: none (0), default (1 cm), minimum (0.4 cm).", ["none", "default", "minimum"], {
    default: "none",
  }),
  pdfMarginTop: length("Top margin: pixels as a number, or a CSS length (`2cm`, `1in`)."),
  pdfMarginRight: length("Right margin."),
  pdfMarginBottom: length("Bottom margin."),
  pdfMarginLeft: length("Left margin."),
  pdfBackground: bool("Print background colours and images.", { default: true }),
  pdfScale: num("PDF rendering scale.", { min: 0.1, max: 2, default: 1 }),
  pdfPageRange: str("Pages to keep, e.g. `1-3,5`.", { maxLength: 256 }),
  media: oneOf("CSS media type for PDF.", ["print", "screen"], { default: "print" }),
  pdfShowHeader: bool("Show the `pdf_header` template at the top of every page.", { default: false }),
  pdfHeader: str("Header HTML template (classes date, title, url, pageNumber, totalPages).", {
    maxLength: 64 * 1024,
    default: "<div class='date text left'></div><div class='title text center'></div>",
  }),
  pdfShowFooter: bool("Show the `pdf_footer` template at the bottom of every page.", { default: false }),
  pdfFooter: str("Footer HTML template.", {
    maxLength: 64 * 1024,
    default:
      "<div class='url text left grow'></div><div class='text right'><span class='pageNumber'></span>/<span class='totalPages'></span></div>",
  }),

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
  ...IMAGE_OPTIONS,
  ...SIDE_OPTIONS,
  ...TARGET_OPTIONS,
  ...WAIT_OPTIONS,
  ...PDF_OPTIONS,
  ...XPATH_OPTIONS,
  webhookUrl: str("Address that receives a signed POST (render.succeeded or render.failed) when the render ends.", {
    maxLength: 2048,
    serverOnly: true,
  }),
  redirectAfter: num("Seconds a sync request waits before answering 307 with the address to wait at (server default 95).", {
    min: 1,
    max: 95,
    integer: true,
    serverOnly: true,
  }),
  responseType: oneOf(
    "What the answer carries: `json` (API default) the result fields, `binary` (render links' default) the render's bytes, `base64` the bytes as base64 text, `none` an empty body with the figures in `X-Render-*` headers. On the async API only `json` and `none`.",
    ["json", "binary", "base64", "none"],
    { serverOnly: true },
  ),
  download: str("Render links: the file name of a `binary` answer (`Content-Disposition: attachment`).", {
    maxLength: 256,
    serverOnly: true,
  }),
} as const;

/** Parsed core options (defaults applied). */
export type RenderOptions = OptionsOf<typeof CORE_OPTIONS>;
