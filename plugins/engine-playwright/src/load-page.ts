import { type PageResponse, type PageSettings, type PageTarget, RenderError, raceSignal, withTimeout } from "@renderkit/core";
import {
  checkProxyAnswer,
  type EgressSession,
  NetworkIdle,
  openEgressSession,
  ResourceLog,
  type WatchRequests,
} from "@renderkit/core/chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { translateError } from "./errors.js";
import { applyPageHooks, authorizeTargetOrigin, type BlockCounter } from "./request-filter.js";
import { newContext, type SparePage } from "./spare-page.js";

export interface LoadedPage {
  page: Page;
  context: BrowserContext;
  egress: EgressSession;
  response: PageResponse;
  /** What `settings.requestFilter` blocked so far. */
  counter: BlockCounter;
  /** The page's requests (`settings.recordResources`). */
  resources?: ResourceLog;
}

const PLAYWRIGHT_WAIT = {
  domloaded: "domcontentloaded",
  loaded: "load",
  requestsfinished: "load",
  mostrequestsfinished: "load",
} as const;

async function addCookies(context: BrowserContext, target: PageTarget, settings: PageSettings): Promise<void> {
  if (settings.cookies.length === 0) return;
  const cookies = settings.cookies.map((c) => {
    if (!c.domain && target.url === undefined) {
      throw new RenderError("InvalidOptions", `Option cookies: cookie ${c.name} needs a Domain when rendering html`);
    }
    return c.domain
      ? { ...c, domain: c.domain, path: c.path ?? "/" }
      : { name: c.name, value: c.value, url: target.url, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite };
  });
  await context.addCookies(cookies);
}

function watchRequests(page: Page): WatchRequests {
  return (started, ended) => {
    page.on("request", started).on("requestfinished", ended).on("requestfailed", ended);
    return () => page.off("request", started).off("requestfinished", ended).off("requestfailed", ended);
  };
}

/**
 * Opens a context behind a fresh egress proxy, loads the target and waits as asked.
 * Everything opened here is closed again when loading fails.
 */
export async function loadPage(
  browser: Browser,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  spare?: SparePage,
): Promise<LoadedPage> {
  const egress = spare?.egress ?? (await openEgressSession(settings.policy, settings.proxy));
  egress.usePolicy(settings.policy, settings.proxy);
  let context: BrowserContext | undefined = spare?.context;
  let idle: NetworkIdle | undefined;
  try {
    context ??= await raceSignal(newContext(browser, settings, egress), signal);
    await addCookies(context, target, settings);
    const counter: BlockCounter = { blocked: 0 };
    await applyPageHooks(context, settings, counter);
    const page = spare?.page ?? (await raceSignal(context.newPage(), signal));
    await authorizeTargetOrigin(context, page, settings);
    const size = page.viewportSize();
    if (size?.width !== settings.width || size?.height !== settings.height) {
      await page.setViewportSize({ width: settings.width, height: settings.height });
    }
    if (Object.keys(settings.headers).length > 0) await page.setExtraHTTPHeaders(settings.headers);
    page.setDefaultTimeout(settings.timeoutMs);
    if (settings.media) await page.emulateMedia({ media: settings.media });
    // A DevTools session of its own that lives as long as the page (closed with the context).
    const resources = settings.recordResources
      ? await raceSignal(
          context.newCDPSession(page).then((cdp) => ResourceLog.attach(cdp)),
          signal,
        )
      : undefined;
    idle = NetworkIdle.forSettings(settings, watchRequests(page));
    const started = Date.now();
    const waitUntil = PLAYWRIGHT_WAIT[settings.waitUntil];
    let response: PageResponse;
    if (target.url !== undefined) {
      const answer = await raceSignal(page.goto(target.url, { waitUntil, timeout: settings.timeoutMs }), signal);
      checkProxyAnswer(answer?.headers(), settings.policy);
      // `allHeaders` has what `headers` leaves out (set-cookie); it waits for the raw headers, so bounded.
      const headers = answer ? await withTimeout(answer.allHeaders(), 5_000).catch(() => answer.headers()) : undefined;
      response = { url: page.url(), status: answer?.status(), headers };
    } else {
      // Init scripts run on new documents; a spare's blank document predates them, so make a new one.
      if (spare && settings.initScripts?.length) await raceSignal(page.goto("about:blank"), signal);
      await raceSignal(page.setContent(target.html, { waitUntil, timeout: settings.timeoutMs }), signal);
      response = { url: page.url() };
    }
    await idle?.settle(settings, started, signal);
    return { page, context, egress, response, counter, resources };
  } catch (error) {
    idle?.dispose();
    if (context) await withTimeout(context.close(), 5_000).catch(() => undefined);
    await egress.close();
    throw translateError(error, "loading the page", target.url !== undefined ? settings.policy : undefined);
  }
}
