import type { PageSession } from "../contracts/page-session.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { isScrollOffset, shownXPath } from "../options/catalogue-xpath.js";
import { forOption, pageError } from "../page/option-errors.js";
import { abortReason } from "../util/timeout.js";

/** Longest one click or hover waits for its element (as `click` does), in ms. */
const STEP_TIMEOUT_MS = 5_000;

/** What the in-page `scroll_to` step found. */
type ScrollOutcome = { scrolled: boolean } | { invalid: string };

/**
 * Scrolls the window to a y offset (a number) or the first match of a CSS selector into view
 * (top aligned). Runs in the page, synchronously (no callbacks: they never run with `disable_js`);
 * a malformed selector comes back as `invalid`.
 */
const SCROLL_SOURCE = `(target) => {
  if (typeof target === "number") {
    window.scrollTo({ top: target, left: 0, behavior: "instant" });
    return { scrolled: true };
  }
  let element;
  try {
    element = document.querySelector(target);
  } catch (error) {
    return { invalid: String(error && error.message ? error.message : error) };
  }
  if (!element) return { scrolled: false };
  element.scrollIntoView({ block: "start", inline: "nearest", behavior: "instant" });
  return { scrolled: true };
}`;

/** What an XPath step found in the page: elements only, else why the expression cannot be used. */
type XPathOutcome = { elements: number } | { invalid: string };

/**
 * Evaluates an XPath expression against the document: how many elements it selects, or `invalid`
 * when the page refuses it or it selects something other than elements (text, attributes, a
 * number). With `scroll`, the first element is also scrolled to the top of the viewport.
 */
const XPATH_SOURCE = `({ expression, scroll }) => {
  let result;
  try {
    result = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  } catch (error) {
    return { invalid: String(error && error.message ? error.message : error).split("\\n")[0] };
  }
  for (let i = 0; i < result.snapshotLength; i++) {
    if (result.snapshotItem(i).nodeType !== 1) return { invalid: "it selects nodes that are not elements (text or attributes)" };
  }
  if (scroll && result.snapshotLength > 0) {
    result.snapshotItem(0).scrollIntoView({ block: "start", inline: "nearest", behavior: "instant" });
  }
  return { elements: result.snapshotLength };
}`;

/** Waits for two animation frames (at most 200 ms), so the next capture paints what changed. */
const NEXT_FRAME_SOURCE = `() => new Promise((resolve) => {
  const timer = setTimeout(resolve, 200);
  requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
})`;

function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw abortReason(signal);
}

/** Bound of one click or hover: `wait_timeout` (within `timeout`), at most 5 s. */
function stepTimeout(options: RenderOptions): number {
  return Math.min(options.waitTimeout, options.timeout, STEP_TIMEOUT_MS);
}

/** Elements `expression` selects now; a refused expression is `InvalidOptions` naming `option`. */
async function xpathElements(session: PageSession, option: string, expression: string, scroll = false): Promise<number> {
  const outcome = await session.evaluate<XPathOutcome>(XPATH_SOURCE, { expression, scroll });
  if ("invalid" in outcome) {
    throw new RenderError(
      "InvalidOptions",
      `Option ${option} "${shownXPath(expression)}" is not an XPath expression selecting elements (${outcome.invalid})`,
      { details: { option } },
    );
  }
  return outcome.elements;
}

/** `click_x` / `click_all_x`: clicks what each expression selects, in order; skipped or failed when nothing does. */
async function clickXPaths(
  session: PageSession,
  options: RenderOptions,
  signal: AbortSignal,
  option: "click_x" | "click_all_x",
): Promise<void> {
  const all = option === "click_all_x";
  const timeoutMs = stepTimeout(options);
  for (const expression of (all ? options.clickAllX : options.clickX) ?? []) {
    checkSignal(signal);
    const found = await xpathElements(session, option, expression);
    const clicked = found === 0 ? 0 : await forOption(option, session.click({ xpath: expression }, { all, timeoutMs }));
    if (clicked === 0 && options.failIfSelectorMissing) {
      throw pageError(`${option}: nothing ${all ? "visible " : ""}matches "${shownXPath(expression)}"`);
    }
  }
}

/** click_x, click_all, click_all_x, press_escape: after `click`, before the pre-scroll. */
export async function clickAndDismiss(session: PageSession, options: RenderOptions, signal: AbortSignal): Promise<void> {
  await clickXPaths(session, options, signal, "click_x");
  const timeoutMs = stepTimeout(options);
  for (const selector of options.clickAll ?? []) {
    checkSignal(signal);
    const clicked = await forOption("click_all", session.click(selector, { all: true, timeoutMs }));
    if (clicked === 0 && options.failIfSelectorMissing) throw pageError(`click_all: nothing matches "${selector}"`);
  }
  await clickXPaths(session, options, signal, "click_all_x");
  if (options.pressEscape) {
    checkSignal(signal);
    await forOption("press_escape", session.press("Escape"));
  }
}

/** `scroll_to` as the page receives it: a y offset for digits, else a CSS selector. */
function scrollTarget(value: string): number | string {
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** scroll_to, then hover: the last steps before `delay` and capture. */
export async function scrollAndHover(session: PageSession, options: RenderOptions, signal: AbortSignal): Promise<void> {
  if (options.scrollTo !== undefined && options.scrollTo.trim() !== "") {
    checkSignal(signal);
    const target = scrollTarget(options.scrollTo);
    const outcome = await session.evaluate<ScrollOutcome>(SCROLL_SOURCE, target);
    if ("invalid" in outcome) {
      throw new RenderError("InvalidOptions", `Option scroll_to: invalid selector: ${outcome.invalid.split("\n")[0]}`, {
        details: { option: "scroll_to" },
      });
    }
    if (!outcome.scrolled && options.failIfSelectorMissing) throw pageError(`scroll_to: nothing matches "${target}"`);
    // Page timers and frames never fire without JavaScript; the capture paints a fresh frame anyway.
    if (outcome.scrolled && !options.disableJs) await session.evaluate(NEXT_FRAME_SOURCE);
  }
  if (options.scrollToX !== undefined && options.scrollToX.trim() !== "") {
    checkSignal(signal);
    await scrollToXPath(session, options, options.scrollToX.trim());
  }
  const timeoutMs = stepTimeout(options);
  for (const selector of options.hover ?? []) {
    checkSignal(signal);
    const hovered = await forOption("hover", session.hover(selector, { timeoutMs }));
    if (!hovered && options.failIfSelectorMissing) throw pageError(`hover: nothing visible matches "${selector}"`);
  }
}

/** `scroll_to_x`: the first element the expression selects to the top of the viewport (digits: a window offset). */
async function scrollToXPath(session: PageSession, options: RenderOptions, expression: string): Promise<void> {
  let scrolled: boolean;
  if (isScrollOffset(expression)) {
    const outcome = await session.evaluate<ScrollOutcome>(SCROLL_SOURCE, Number(expression));
    scrolled = "scrolled" in outcome && outcome.scrolled;
  } else {
    scrolled = (await xpathElements(session, "scroll_to_x", expression, true)) > 0;
    if (!scrolled && options.failIfSelectorMissing) throw pageError(`scroll_to_x: nothing matches "${shownXPath(expression)}"`);
  }
  if (scrolled && !options.disableJs) await session.evaluate(NEXT_FRAME_SOURCE);
}
