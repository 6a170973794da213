import type { PageSettings, RequestFilter, RequestInfo } from "@renderkit/core";
import { authorizedHeaders, resourceKind, type TargetHeaders } from "@renderkit/core/chromium";
import type { HTTPRequest, Page } from "puppeteer-core";

/** Counts what a page's filter blocked. */
export interface BlockCounter {
  blocked: number;
}

/** What the filter is told about `request`. */
export function describeRequest(request: HTTPRequest, page: Page): RequestInfo {
  const url = request.url();
  const frame = request.frame();
  const navigation = request.isNavigationRequest();
  const parent = frame?.parentFrame() ?? null;
  const mainDocument = navigation && frame !== null && parent === null;
  // A frame's own document is made by its parent; the main document has none and counts as its own.
  // Requests of the page's workers have no frame: they count as the page's.
  const frameUrl = navigation ? (parent?.url() ?? url) : (frame ?? page.mainFrame()).url();
  return { url, kind: resourceKind(request.resourceType()), frameUrl, mainDocument };
}

/** Asks `filter`; one that throws does not block. */
function blocks(filter: RequestFilter, request: HTTPRequest, page: Page): boolean {
  try {
    return filter(describeRequest(request, page)) === true;
  } catch {
    return false;
  }
}

function settle(action: () => Promise<void>): void {
  try {
    action().catch(() => undefined);
  } catch {
    // The request was already handled, or the page went away.
  }
}

/**
 * Adds the init scripts (Puppeteer applies them to out-of-process frames as it attaches to them)
 * and intercepts every request of the page through `settings.requestFilter`; without a filter
 * nothing is intercepted. Interception covers out-of-process frames too: Puppeteer enables it on
 * every frame target's session before the target runs. The caller's headers (`target`: the
 * `headers` option and `authorization`) are added to the requests to the target's origin and to
 * no other (each redirect hop is intercepted as a request of its own, so a hop that leaves the
 * origin loses them).
 */
export async function applyPageHooks(
  page: Page,
  settings: PageSettings,
  counter: BlockCounter,
  target: TargetHeaders | undefined,
): Promise<void> {
  // One at a time: Chromium runs them in the order they were added.
  for (const script of settings.initScripts ?? []) await page.evaluateOnNewDocument(script);
  const filter = settings.requestFilter;
  if (!filter && !target) return;
  page.on("request", (request) => {
    if (request.isInterceptResolutionHandled()) return;
    // A data: address never reaches the network (and is not intercepted, as with Playwright).
    if (request.url().startsWith("data:")) return;
    if (filter && blocks(filter, request, page)) {
      counter.blocked++;
      settle(() => request.abort("blockedbyclient"));
    } else {
      const headers = authorizedHeaders(request.url(), request.headers(), target);
      settle(() => request.continue(headers ? { headers } : undefined));
    }
  });
  await page.setRequestInterception(true);
}
