import { withTimeout } from "@renderkit/core";
import { IDLE_POLICY, resetChromiumPage } from "@renderkit/core/chromium";
import type { LoadedPage, ReusedPage } from "./load-page.js";

/** How long a reset may take before the page is closed instead. */
const RESET_BUDGET_MS = 5_000;

/** What the shelf keeps of a loaded page: the context, the page, its DevTools session and proxy. */
export function shelfEntry(loaded: LoadedPage): ReusedPage {
  return { context: loaded.context, page: loaded.page, cdp: loaded.cdp, egress: loaded.egress, reused: true };
}

/**
 * Resets a page for the next render of its project: other pages of the context (popups) closed,
 * the proxy refusing everything while the page waits, the page on `about:blank`, and what the
 * render left cleared (`resetChromiumPage`). False when the page cannot be reused: it is gone, it
 * reached more origins than the proxy remembers, or a step failed or took too long.
 */
export async function resetPage(entry: ReusedPage): Promise<boolean> {
  const { page, context, egress, cdp } = entry;
  const reached = egress.origins();
  if (page.isClosed() || reached.overflowed || egress.limitError()) return false;
  egress.usePolicy(IDLE_POLICY);
  const reset = async () => {
    const pages = await context.pages();
    await Promise.all(pages.map((other) => (other === page ? undefined : other.close())));
    await resetChromiumPage(cdp, reached.origins);
    return true;
  };
  return withTimeout(reset(), RESET_BUDGET_MS).catch(() => false);
}

/** Closes a page the shelf let go, with its context and proxy. */
export async function discardPage(entry: ReusedPage): Promise<void> {
  await withTimeout(entry.context.close(), 5_000).catch(() => undefined);
  await entry.egress.close();
}
