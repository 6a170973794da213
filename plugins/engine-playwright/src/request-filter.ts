import { type PageSettings, type RequestFilter, type RequestInfo, resourceKind } from "@renderkit/core";
import type { BrowserContext, Frame, Request } from "playwright-core";

/** Counts what a page's filter blocked. */
export interface BlockCounter {
  blocked: number;
}

function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    // Service worker requests have no frame (service workers are blocked, but stay safe).
    return undefined;
  }
}

/** What the filter is told about `request`. */
export function describeRequest(request: Request): RequestInfo {
  const url = request.url();
  const frame = frameOf(request);
  const navigation = request.isNavigationRequest();
  const parent = frame?.parentFrame() ?? null;
  const mainDocument = navigation && frame !== undefined && parent === null;
  // A frame's own document is made by its parent; the main document has none and counts as its own.
  const frameUrl = navigation ? (parent?.url() ?? url) : (frame?.url() ?? "");
  return { url, kind: resourceKind(request.resourceType()), frameUrl, mainDocument };
}

/** Asks `filter`; one that throws does not block. */
function blocks(filter: RequestFilter, request: Request): boolean {
  try {
    return filter(describeRequest(request)) === true;
  } catch {
    return false;
  }
}

/**
 * Routes every request of the context (all pages, all frames, out-of-process iframes included)
 * through `settings.requestFilter`, and adds the init scripts. Nothing is routed without a
 * filter. Init scripts added after a page exists still apply to its next navigation.
 */
export async function applyPageHooks(context: BrowserContext, settings: PageSettings, counter: BlockCounter): Promise<void> {
  for (const script of settings.initScripts ?? []) await context.addInitScript(script);
  const filter = settings.requestFilter;
  if (!filter) return;
  // Playwright routes only the first request of a redirect chain and lets the browser follow the
  // rest. The main document is never blocked, so its later hops are only shown to the filter.
  context.on("request", (request) => {
    if (request.redirectedFrom() === null) return;
    const info = describeRequest(request);
    if (!info.mainDocument) return;
    try {
      filter(info);
    } catch {
      // A throwing filter does not block.
    }
  });
  await context.route("**/*", (route, request) => {
    if (blocks(filter, request)) {
      counter.blocked++;
      return route.abort("blockedbyclient").catch(() => undefined);
    }
    return route.continue().catch(() => undefined);
  });
}
