import { withTimeout } from "@renderkit/core";
import { resetForReuse } from "@renderkit/core/chromium";
import type { LoadedPage, ReusedPage } from "./load-page.js";

/** What the shelf keeps of a loaded page: the context, the page, its DevTools session and proxy. */
export function shelfEntry(loaded: LoadedPage): ReusedPage {
  return { context: loaded.context, page: loaded.page, cdp: loaded.cdp, egress: loaded.egress, applied: loaded.applied };
}

/**
 * Resets a page that served `uses` renders for the next render of its project (core's
 * `resetForReuse`); false: close it instead.
 */
export function resetPage(uses: number, entry: ReusedPage): Promise<boolean> {
  const { page, context, egress, cdp } = entry;
  return resetForReuse({
    cdp,
    egress,
    closed: () => page.isClosed(),
    closeOthers: async () => {
      const pages = await context.pages();
      await Promise.all(pages.map((other) => (other === page ? undefined : other.close())));
    },
    firstReset: uses === 1,
  });
}

/** Closes a page the shelf let go, with its context and proxy. */
export async function discardPage(entry: ReusedPage): Promise<void> {
  await withTimeout(entry.context.close(), 5_000).catch(() => undefined);
  await entry.egress.close();
}
