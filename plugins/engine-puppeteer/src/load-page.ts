import type { PageSettings, PageTarget } from "@renderkit/core";
import { raceSignal } from "@renderkit/core";
import {
  type EgressSession,
  type LoadedTarget,
  loadTarget,
  type PageLoader,
  type PreparedPage,
  pageHeaders,
  ResourceLog,
} from "@renderkit/core/chromium";
import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page } from "puppeteer-core";
import { translateError } from "./errors.js";
import { appliedSettings, refreshPage, setUpPage } from "./page-setup.js";
import { applyPageHooks, type BlockCounter } from "./request-filter.js";

/** A Puppeteer page set up for the render. */
export interface PuppeteerPage extends PreparedPage {
  page: Page;
  /** The page's own DevTools session (locale overrides live as long as it does). */
  cdp: CDPSession;
  counter: BlockCounter;
  /** The per-render settings the page holds now (`appliedSettings`). */
  applied: string;
}

export type LoadedPage = LoadedTarget<BrowserContext, PuppeteerPage>;

/** A page that served an earlier render of the same project and was reset, with its session and proxy. */
export interface ReusedPage {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  egress: EgressSession;
  /** What the page was last given (`appliedSettings`). */
  applied: string;
}

/**
 * A context whose every connection, loopback included, goes through `egress`. Chromium sends
 * loopback addresses around a proxy unless the bypass list says `<-loopback>`; without it a page
 * could reach any local port directly.
 */
function newContext(browser: Browser, egress: EgressSession): Promise<BrowserContext> {
  return browser.createBrowserContext({
    proxyServer: egress.proxyUrl,
    proxyBypassList: ["<-loopback>"],
    downloadBehavior: { policy: "deny" },
  });
}

/** Opens the page with every setting that must precede navigation (Puppeteer sets them per page). */
async function preparePage(
  context: BrowserContext,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  reused: ReusedPage | undefined,
): Promise<PuppeteerPage> {
  const headers = pageHeaders(target, settings);
  const applied = appliedSettings(settings, headers.everywhere);
  if (reused) {
    const { page, cdp } = reused;
    await raceSignal(refreshPage(page, cdp, target, settings, headers.everywhere, reused.applied), signal);
    return { page, cdp, counter: { blocked: 0 }, devtools: cdp, applied };
  }
  const page = await raceSignal(context.newPage(), signal);
  const cdp = await raceSignal(setUpPage(page, target, settings, headers.everywhere), signal);
  const resources = settings.recordResources ? await raceSignal(ResourceLog.attach(cdp), signal) : undefined;
  const counter: BlockCounter = { blocked: 0 };
  await raceSignal(applyPageHooks(page, settings, counter, headers.target), signal);
  return { page, cdp, counter, resources, devtools: cdp, applied };
}

/** Chromium's favicon request for the page (type "other", `/favicon.ico`), not one the page made. */
function isBrowserFavicon(request: HTTPRequest): boolean {
  return request.resourceType() === "other" && /^https?:\/\/[^/]+\/favicon\.ico$/.test(request.url());
}

/** Puppeteer's calls for core's load skeleton. */
function puppeteerLoader(
  browser: Browser,
  target: PageTarget,
  settings: PageSettings,
  reused: ReusedPage | undefined,
): PageLoader<BrowserContext, PuppeteerPage> {
  return {
    newContext: (egress) => newContext(browser, egress),
    closeContext: (context) => context.close(),
    preparePage: (context, signal) => preparePage(context, target, settings, signal, reused),
    watchRequests: ({ page }) => {
      return (started, ended) => {
        // The browser's own favicon fetch is no request of the page (Playwright does not report it),
        // and after a client-side navigation Chromium may drop it with no end event: the page would
        // never be idle.
        const counted = (request: HTTPRequest) => !isBrowserFavicon(request);
        const start = (request: HTTPRequest) => counted(request) && started();
        const end = (request: HTTPRequest) => counted(request) && ended();
        page.on("request", start).on("requestfinished", end).on("requestfailed", end);
        return () => page.off("request", start).off("requestfinished", end).off("requestfailed", end);
      };
    },
    goto: async ({ page }, url, options) => {
      const answer = await page.goto(url, { waitUntil: options.waitUntil, timeout: options.timeoutMs });
      if (!answer) return undefined;
      // Puppeteer reports the raw headers (set-cookie included) when Chromium sent them.
      const headers = answer.headers();
      return { status: answer.status(), headers, allHeaders: async () => headers };
    },
    setContent: ({ page }, html, options) => page.setContent(html, { waitUntil: options.waitUntil, timeout: options.timeoutMs }),
    url: ({ page }) => page.url(),
    translate: translateError,
    // The page's blank document is made before `applyPageHooks` adds the init scripts.
    documentPredatesInitScripts: true,
  };
}

/**
 * Opens a context behind a fresh egress proxy (or takes a reused page's), loads the target and
 * waits as asked (core's `loadTarget`). Everything opened here is closed again when loading fails.
 */
export function loadPage(
  browser: Browser,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  reused?: ReusedPage,
): Promise<LoadedPage> {
  return loadTarget(puppeteerLoader(browser, target, settings, reused), target, settings, signal, reused);
}
