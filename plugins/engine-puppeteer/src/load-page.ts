import { type PageResponse, type PageSettings, type PageTarget, raceSignal, withTimeout } from "@renderkit/core";
import {
  checkProxyAnswer,
  type EgressSession,
  NetworkIdle,
  openEgressSession,
  ResourceLog,
  type WatchRequests,
} from "@renderkit/core/chromium";
import type { Browser, BrowserContext, CDPSession, Page } from "puppeteer-core";
import { translateError } from "./errors.js";
import { setUpPage } from "./page-setup.js";
import { applyPageHooks, type BlockCounter } from "./request-filter.js";

export interface LoadedPage {
  page: Page;
  context: BrowserContext;
  /** The page's own DevTools session (locale overrides live as long as it does). */
  cdp: CDPSession;
  egress: EgressSession;
  response: PageResponse;
  /** What `settings.requestFilter` blocked so far. */
  counter: BlockCounter;
  /** The page's requests (`settings.recordResources`). */
  resources?: ResourceLog;
}

const PUPPETEER_WAIT = {
  domloaded: "domcontentloaded",
  loaded: "load",
  requestsfinished: "load",
  mostrequestsfinished: "load",
} as const;

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
): Promise<LoadedPage> {
  const egress = await openEgressSession(settings.policy, settings.proxy);
  const creating = newContext(browser, egress);
  let context: BrowserContext | undefined;
  let idle: NetworkIdle | undefined;
  try {
    context = await raceSignal(creating, signal);
    const page = await raceSignal(context.newPage(), signal);
    const cdp = await raceSignal(setUpPage(page, target, settings), signal);
    const resources = settings.recordResources ? await raceSignal(ResourceLog.attach(cdp), signal) : undefined;
    const counter: BlockCounter = { blocked: 0 };
    await raceSignal(applyPageHooks(page, settings, counter), signal);
    idle = NetworkIdle.forSettings(settings, watchRequests(page));
    const started = Date.now();
    const waitUntil = PUPPETEER_WAIT[settings.waitUntil];
    let response: PageResponse;
    if (target.url !== undefined) {
      const answer = await raceSignal(page.goto(target.url, { waitUntil, timeout: settings.timeoutMs }), signal);
      checkProxyAnswer(answer?.headers(), settings.policy);
      // Puppeteer reports the raw headers (set-cookie included) when Chromium sent them.
      response = { url: page.url(), status: answer?.status(), headers: answer?.headers() };
    } else {
      // Init scripts run on new documents and the page's blank one predates them: make a new one
      // (`setContent` writes into the current document, keeping its globals).
      if (settings.initScripts?.length) await raceSignal(page.goto("about:blank"), signal);
      await raceSignal(page.setContent(target.html, { waitUntil, timeout: settings.timeoutMs }), signal);
      response = { url: page.url() };
    }
    await idle?.settle(settings, started, signal);
    return { page, context, cdp, egress, response, counter, resources };
  } catch (error) {
    idle?.dispose();
    // An abort can win the race against context creation: close the context once it exists.
    const opened = context ?? (await withTimeout(creating, 5_000).catch(() => undefined));
    if (opened) await withTimeout(opened.close(), 5_000).catch(() => undefined);
    await egress.close();
    throw translateError(error, "loading the page", target.url !== undefined ? settings.policy : undefined);
  }
}
