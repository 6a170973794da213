import type { PageSettings, RequestFilter, RequestInfo } from "@renderkit/core";
import { authorizedHeaders, resourceKind, type TargetHeaders } from "@renderkit/core/chromium";
import type { BrowserContext, Frame, Page, Request } from "playwright-core";

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
 * through `settings.requestFilter`, and adds the init scripts and the emulated position. Nothing
 * is routed without a filter. Init scripts, routes and the position added after a page exists
 * still apply to its next navigation. (The caller's headers are `addTargetHeaders`'s.)
 */
export async function applyPageHooks(context: BrowserContext, settings: PageSettings, counter: BlockCounter): Promise<void> {
  for (const script of settings.initScripts ?? []) await context.addInitScript(script);
  if (settings.geolocation) {
    // No origin: granted to every origin the page and its frames load.
    await context.grantPermissions(["geolocation"]);
    await context.setGeolocation(settings.geolocation);
  }
  const filter = settings.requestFilter;
  if (!filter) return;
  watchRedirects(context, filter);
  await context.route("**/*", (route, request) => {
    if (blocks(filter, request)) {
      counter.blocked++;
      return route.abort("blockedbyclient").catch(() => undefined);
    }
    return route.continue().catch(() => undefined);
  });
}

/**
 * Adds the caller's headers (`headers` option, `authorization`: `pageHeaders(...).target`) to the
 * requests of `page` that go to the target's origin, through a DevTools session of its own (Fetch
 * domain, request stage), and takes them off redirect hops to any other origin. Not with
 * `route.continue({ headers })` nor `setExtraHTTPHeaders`: Playwright re-applies a route's header
 * overrides to every later hop of a redirect chain, and extra headers go to every origin, so a
 * third party would get them. Requests made inside out-of-process (cross-site) iframes are not
 * intercepted: they never get them. Nothing is intercepted without such headers (the fast path).
 */
export async function addTargetHeaders(context: BrowserContext, page: Page, target: TargetHeaders | undefined): Promise<void> {
  if (!target) return;
  const cdp = await context.newCDPSession(page);
  cdp.on("Fetch.requestPaused", (event) => {
    const headers = authorizedHeaders(event.request.url, event.request.headers, target);
    const params = headers ? { headers: Object.entries(headers).map(([name, value]) => ({ name, value })) } : {};
    cdp.send("Fetch.continueRequest", { requestId: event.requestId, ...params }).catch(() => undefined);
  });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
}

/**
 * Playwright routes only the first request of a redirect chain and lets the browser follow the
 * rest. The main document is never blocked, so its later hops are only shown to the filter.
 */
function watchRedirects(context: BrowserContext, filter: RequestFilter): void {
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
}
