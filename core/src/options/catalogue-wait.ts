import type { OptionRule } from "../contracts/option-rule.js";
import { bool, num, oneOf, str, strings } from "./spec.js";

/** Bounds of `global_timeout` in ms. */
export const GLOBAL_TIMEOUT = { min: 1_000, max: 900_000 } as const;

/** A CSS colour as `highlightfg` / `highlightbg` take it: a name, `#hex`, or a colour function. */
export const COLOUR_PATTERN =
  /^(#[0-9a-f]{3,8}|[a-z]{3,30}|(rgb|rgba|hsl|hsla|hwb|lab|lch|oklab|oklch)\([0-9a-z.,%\s/+-]{1,80}\))$/i;

/** Waiting and page options (issue 11): wait states, image wait, global timeout, animations, highlighting, more blocking, reader view. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md). */
export const WAIT_OPTIONS = {
  waitForState: oneOf(
    "What `wait_for` waits for: `visible` (in the DOM with a box and not `visibility: hidden`; the default) or `attached` (in the DOM, visible or not). Needs `wait_for`.",
    ["attached", "visible"],
    { default: "visible" },
  ),
  waitToLeaveState: oneOf(
    "What `wait_to_leave` waits for: `hidden` (removed, or without a box or `visibility: hidden`; the default) or `detached` (removed from the DOM). Needs `wait_to_leave`.",
    ["detached", "hidden"],
    { default: "hidden" },
  ),
  skipWaitForImages: bool(
    "Skip renderkit's image wait after the lazy-load pre-scroll of `full_page` captures and PDFs (up to 10 s for images to load and decode): the capture follows the scroll at once. The browser's load event (`wait_until: loaded`) still includes the images the HTML names; use `wait_until: domloaded` not to wait for them either.",
    { default: false },
  ),
  globalTimeout: num(
    "Milliseconds the whole render may take, every attempt and retry included (the time waiting in the queue is not counted). When it runs out the render fails with `RenderTimeoutError` naming global_timeout, and is not retried.",
    { min: GLOBAL_TIMEOUT.min, max: GLOBAL_TIMEOUT.max, integer: true },
  ),
  disableAnimations: bool(
    "Stop animations before capture: CSS animations and transitions jump to their end (finite ones finish, infinite ones are cancelled, as Playwright's `animations: disabled`), Web Animations (`element.animate()`, `document.getAnimations()`) are finished, also those started after load, in every frame. Every format.",
    { default: false },
  ),
  highlight: str(
    "Words to highlight, separated by `|` (`renderkit|chromium`): every occurrence, case-insensitive, in the text of the page (not in scripts, styles, form fields or attributes) is wrapped in a `<mark>` coloured with `highlightfg` / `highlightbg`. Runs just before capture; with `readable`, in the reader view.",
    { maxLength: 1024 },
  ),
  highlightfg: str("Text colour of `highlight` marks: a CSS colour name, `#hex` or `rgb()`/`hsl()`.", {
    maxLength: 100,
    default: "white",
  }),
  highlightbg: str("Background colour of `highlight` marks: a CSS colour name, `#hex` or `rgb()`/`hsl()`.", {
    maxLength: 100,
    default: "red",
  }),
  hideSelectorX: strings(
    "XPath expression whose matching elements are hidden (`display: none !important`); repeat the option for several (commas belong to XPath, e.g. `contains(@class, 'ad')`, so they do not separate expressions). Applied with `hide_selector`, and again just before capture for elements added later.",
    { maxItems: 50, maxLength: 2048 },
  ),
  blockUrlKeywords: strings(
    "Block requests whose address contains this text, case-insensitive (`doubleclick`, `/track`); repeatable. The page itself is never blocked.",
    { maxItems: 100, maxLength: 256 },
  ),
  blockSockets: bool(
    "Block the page's WebSocket connections, in every frame: `new WebSocket()` fails (an `error` then a `close` event with code 1006) and no connection is made. Sockets opened inside web workers are not covered.",
    { default: false },
  ),
  readable: bool(
    "Reader view: the page's main article is extracted with Mozilla Readability and replaces the page as a clean, readable document (title, byline, article text and images) before anything else changes the page; the other page options (`css`, `js`, `highlight`...) then apply to it. Fails the render when no article can be found.",
    { default: false },
  ),
} as const;

/** Combinations of these options that cannot work (400 `InvalidOptions`); see `OptionRule`. */
export const WAIT_RULES: readonly OptionRule[] = [
  {
    option: "waitForState",
    when: (o) => o.waitForState !== "visible" && !o.waitFor,
    why: "needs wait_for (it says what wait_for waits for)",
  },
  {
    option: "waitToLeaveState",
    when: (o) => o.waitToLeaveState !== "hidden" && !o.waitToLeave,
    why: "needs wait_to_leave (it says what wait_to_leave waits for)",
  },
  {
    option: "highlightfg",
    when: (o) => !COLOUR_PATTERN.test(String(o.highlightfg).trim()),
    why: "must be a CSS colour: a name, #hex, rgb() or hsl()",
  },
  {
    option: "highlightbg",
    when: (o) => !COLOUR_PATTERN.test(String(o.highlightbg).trim()),
    why: "must be a CSS colour: a name, #hex, rgb() or hsl()",
  },
  {
    option: "highlight",
    when: (o) => o.highlight?.split("|").every((w) => w.trim() === "") === true,
    why: "names no word (separate words with |)",
  },
  {
    option: "blockUrlKeywords",
    when: (o) => (o.blockUrlKeywords ?? []).some((k) => k.trim() === ""),
    why: "must not be empty (an empty keyword would block every request)",
  },
  {
    option: "hideSelectorX",
    when: (o) => (o.hideSelectorX ?? []).some((x) => x.trim() === ""),
    why: "must not be empty",
  },
];
