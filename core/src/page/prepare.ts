import type { FormatSpec } from "../contracts/formatter.js";
import type { Logger } from "../contracts/logger.js";
import type { PageSession } from "../contracts/page-session.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { checkXPathOptions } from "../options/catalogue-xpath.js";
import type { AdBlocker } from "../prepare/adblock/index.js";
import { checkBlockPatterns } from "../prepare/blocking.js";
import { consentMode, settleConsent } from "../prepare/consent/index.js";
import { clickAndDismiss, scrollAndHover } from "../prepare/interactions.js";
import { finishAnimations, hideXPath, highlightText, stopCssAnimations } from "../prepare/page-changes.js";
import { showReaderView } from "../prepare/readable.js";
import { preScroll } from "../prepare/scroll.js";
import { sleep, withTimeout } from "../util/timeout.js";
import { captureBounds } from "./capture-limits.js";
import { disableLigatures } from "./ligatures.js";
import { forOption, pageError } from "./option-errors.js";
import { checkPageSettings } from "./settings.js";

export { forOption, pageError } from "./option-errors.js";

/** What preparation needs besides the page and the options. */
export interface PrepareContext {
  /** The output format (`wholeDocument`: its output holds the whole document, so it is pre-scrolled like `full_page`). */
  format: FormatSpec;
  logger: Logger;
  /** Loaded filter engine when `block_ads` is on and a list is available. */
  adblock?: AdBlocker;
  renderId?: string;
  /** The formatter's output limit in device pixels (`Formatter.maxPixelHeight`), if any. */
  maxPixelHeight?: number;
}

/** Longest the consent step waits for autoconsent after load, in ms. */
export const CONSENT_BUDGET_MS = 5_000;
/** Longest the lazy-load pre-scroll (with its image wait) takes, in ms. */
export const PRESCROLL_BUDGET_MS = 20_000;

/** Time preparation may add beyond the page's own waits (the attempt budget grows by it). */
export function preparationBudgetMs(options: RenderOptions, format?: FormatSpec): number {
  let ms = 0;
  if (consentMode(options)) ms += CONSENT_BUDGET_MS;
  if (options.fullPage || format?.wholeDocument) ms += PRESCROLL_BUDGET_MS;
  return ms;
}

/** Cross-option checks of page preparation, at parse time (a 400 before queueing). */
export function checkPageOptions(options: RenderOptions): void {
  if (options.disableJs && options.js) {
    throw new RenderError("InvalidOptions", "Option js cannot run with disable_js", { details: { option: "js" } });
  }
  checkBlockPatterns(options.blockUrls ?? []);
  checkXPathOptions(options);
  checkPageSettings(options);
}

/** Whether the request's capture covers the whole document (and so needs the lazy-load pre-scroll). */
function wholeDocument(options: RenderOptions, format: FormatSpec): boolean {
  return (options.fullPage || format.wholeDocument === true) && !options.selector && !options.skipScroll;
}

/**
 * How far down (CSS px) a capture of the whole document can reach: `max_height`, the capture
 * caps for a document as wide as the viewport, and the output's own limit. Pre-scrolling past it
 * loads content no output will show.
 */
export function scrollLimit(options: RenderOptions, maxPixelHeight: number | undefined): number {
  const area = { width: options.width, height: Number.POSITIVE_INFINITY };
  return captureBounds(area, options.deviceScaleFactor, options.maxHeight, { maxPixelHeight }).height;
}

/** Fails the render when the page answered with a status the request refuses. */
export function checkStatus(session: PageSession, options: RenderOptions): void {
  const status = session.response.status;
  if (status === undefined) return;
  if ((options.failOn4xx && status >= 400 && status < 500) || (options.failOn5xx && status >= 500 && status < 600)) {
    throw pageError(`The page answered HTTP ${status} (fail_on_${Math.floor(status / 100)}xx is set)`);
  }
}

/** CSS hiding every selector of a comma list. */
export function hideCss(selectors: string): string {
  return `${selectors} { display: none !important; }`;
}

/**
 * Runs the request's page preparation in a fixed order (docs/page-preparation.md): status check,
 * `wait_for` / `wait_to_leave`, consent banners, `readable`, ad hiding, `disable_animations`
 * (CSS), `disable_ligatures`, `css`, `hide_selector` / `hide_selector_x`, `js`, `click`, `click_x`, `click_all`,
 * `click_all_x`, `press_escape`, lazy-load pre-scroll, `scroll_to` / `scroll_to_x`, `hover`, `delay`, then just before capture `hide_selector_x`
 * again, `highlight` and `disable_animations` (finishing animations). Engines supply the
 * primitives; the order is the same for all.
 */
export async function preparePage(
  session: PageSession,
  options: RenderOptions,
  signal: AbortSignal,
  context: PrepareContext,
): Promise<void> {
  checkStatus(session, options);
  const waitTimeout = Math.min(options.waitTimeout, options.timeout);
  if (options.waitFor) {
    const found = await forOption(
      "wait_for",
      session.waitForSelector(options.waitFor, { state: options.waitForState, timeoutMs: waitTimeout }),
    );
    if (found && options.failIfSelectorPresent) {
      throw pageError(`wait_for: "${options.waitFor}" is present (fail_if_selector_present is set)`);
    }
    if (!found && options.failIfSelectorMissing) {
      const what = options.waitForState === "attached" ? "was not in the page" : "did not appear";
      throw pageError(`wait_for: "${options.waitFor}" ${what} within ${waitTimeout} ms`);
    }
  }
  if (options.waitToLeave) {
    const left = await forOption(
      "wait_to_leave",
      session.waitForSelector(options.waitToLeave, { state: options.waitToLeaveState, timeoutMs: waitTimeout }),
    );
    if (!left && options.failIfSelectorMissing) {
      const what = options.waitToLeaveState === "detached" ? "in the page" : "visible";
      throw pageError(`wait_to_leave: "${options.waitToLeave}" was still ${what} after ${waitTimeout} ms`);
    }
  }
  const consent = consentMode(options);
  if (consent) {
    const report = await settleConsent(session, consent, {
      budgetMs: CONSENT_BUDGET_MS,
      signal,
      logger: context.logger,
      renderId: context.renderId,
      pageScripts: !options.disableJs,
    });
    context.logger.debug("consent banners", { renderId: context.renderId, mode: consent, ...report });
  }
  if (options.readable) {
    const length = await showReaderView(session);
    context.logger.debug("reader view", { renderId: context.renderId, length });
  }
  if (context.adblock) {
    const css = await context.adblock.cosmeticCss(session);
    if (css) await session.addStyle(css);
  }
  if (options.disableAnimations) await stopCssAnimations(session);
  if (options.disableLigatures) await disableLigatures(session);
  if (options.css) await session.addStyle(options.css);
  if (options.hideSelector) await forOption("hide_selector", session.addStyle(hideCss(options.hideSelector)));
  if (options.hideSelectorX) await hideXPath(session, options.hideSelectorX);
  if (options.js) {
    try {
      // A script that never settles would hold the page until the attempt's stall guard.
      await withTimeout(
        session.evaluate(`async () => { ${options.js}\n}`),
        options.timeout,
        () => new RenderError("RenderTimeoutError", `The js option did not finish within ${options.timeout} ms (timeout)`),
      );
    } catch (error) {
      if (error instanceof RenderError) throw error;
      const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw pageError(`The js option failed in the page: ${why}`);
    }
  }
  for (const selector of options.click ?? []) {
    const clicked = await forOption("click", session.click(selector, { all: false, timeoutMs: Math.min(waitTimeout, 5_000) }));
    if (clicked === 0 && options.failIfSelectorMissing) throw pageError(`click: nothing matches "${selector}"`);
  }
  await clickAndDismiss(session, options, signal);
  if (wholeDocument(options, context.format)) {
    const scrolled = await preScroll(
      session,
      {
        increment: options.scrollIncrement ?? options.height,
        delay: options.scrollDelay,
        maxHeight: scrollLimit(options, context.maxPixelHeight),
        budgetMs: PRESCROLL_BUDGET_MS,
        pageTimers: !options.disableJs,
        waitForImages: !options.skipWaitForImages,
      },
      signal,
    );
    context.logger.debug("pre-scroll", { renderId: context.renderId, ...scrolled });
  }
  await scrollAndHover(session, options, signal);
  if (options.selector && options.failIfSelectorPresent) {
    const box = await forOption("selector", session.elementBox(options.selector));
    if (box) throw pageError(`selector: "${options.selector}" is present (fail_if_selector_present is set)`);
  }
  if (options.delay > 0) await sleep(options.delay, signal);
  await beforeCapture(session, options, context);
}

/** The last steps, just before capture: `hide_selector_x` again (later elements), `highlight`, finishing animations. */
async function beforeCapture(session: PageSession, options: RenderOptions, context: PrepareContext): Promise<void> {
  if (options.hideSelectorX) await hideXPath(session, options.hideSelectorX);
  if (options.highlight) {
    const marks = await highlightText(session, options);
    context.logger.debug("highlight", { renderId: context.renderId, marks });
  }
  if (options.disableAnimations) await finishAnimations(session);
}
