import type { PageSession } from "../../contracts/page-session.js";
import { RenderError } from "../../errors.js";
import { hideMarkedBanners, MARK, type MarkResult, markConsentBanners } from "./heuristics.js";

/** Longest wait for one accept click, and for a clicked banner to go away, in ms. */
const CLICK_TIMEOUT_MS = 1_000;

// Clicks only while the button and its banner are still shown: an engine click that timed out may
// have landed all the same, and a second click would send the page a second choice.
const domClick = `({ selector, mark }) => {
  const el = document.querySelector(selector);
  if (!(el instanceof HTMLElement) || !el.isConnected) return 0;
  const shown = (node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden";
  const banner = el.closest("[" + mark + '="banner"]');
  if (!shown(el) || (banner && !shown(banner))) return 0;
  el.click();
  return 1;
}`;

/** A click the engine refused (covered, detached...) falls back to a DOM click; a lost browser is fatal. */
async function clickMarked(session: PageSession, selector: string): Promise<boolean> {
  try {
    if ((await session.click(selector, { all: false, timeoutMs: CLICK_TIMEOUT_MS })) > 0) return true;
  } catch (error) {
    if (error instanceof RenderError && error.code !== "InvalidOptions" && error.code !== "RenderTimeoutError") throw error;
  }
  return (await session.evaluate<number>(domClick, { selector, mark: MARK })) > 0;
}

/**
 * The generic fallback in the main frame: banners with consent wording that no rule handled.
 * `hide` hides them; `accept` clicks the accept-like button of each, then hides what is still
 * shown (banners without such a button included). Resolves with the number of banners handled.
 */
export async function genericFallback(session: PageSession, mode: "hide" | "accept"): Promise<number> {
  const found = await session.evaluate<MarkResult>(markConsentBanners.toString(), { mode, mark: MARK });
  if (found.banners === 0) return 0;
  try {
    let clicked = 0;
    for (let i = 0; i < found.buttons; i++) {
      if (await clickMarked(session, `[${MARK}-accept="${i}"]`)) clicked++;
    }
    if (clicked > 0) {
      await session.waitForSelector(`[${MARK}="banner"]`, { state: "hidden", timeoutMs: CLICK_TIMEOUT_MS });
    }
  } finally {
    await session.evaluate<number>(hideMarkedBanners.toString(), { mark: MARK });
  }
  return found.banners;
}
