import {
  DENIED_HEADER,
  type EgressSession,
  openEgressSession,
  type PageResponse,
  type PageSettings,
  type PageTarget,
  RenderError,
  raceSignal,
  withTimeout,
} from "@renderkit/core";
import type { Browser, BrowserContext, CDPSession, Page } from "puppeteer-core";
import { translateError } from "./errors.js";
import { NetworkIdle } from "./network-idle.js";
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
}

const PUPPETEER_WAIT = {
  domloaded: "domcontentloaded",
  loaded: "load",
  requestsfinished: "load",
  mostrequestsfinished: "load",
} as const;

/** Checks the target's own address first, for a clear error before any browser work. */
export async function checkTarget(target: PageTarget, settings: PageSettings): Promise<void> {
  if (target.url === undefined) return;
  const url = new URL(target.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RenderError("InvalidURLError", `Only http and https addresses can be rendered, not ${url.protocol}`);
  }
  await settings.policy.resolve(url.hostname, Number(url.port || (url.protocol === "https:" ? 443 : 80)));
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
  const egress = await openEgressSession(settings.policy);
  const creating = newContext(browser, egress);
  let context: BrowserContext | undefined;
  let idle: NetworkIdle | undefined;
  try {
    context = await raceSignal(creating, signal);
    const page = await raceSignal(context.newPage(), signal);
    const cdp = await raceSignal(setUpPage(page, target, settings), signal);
    const counter: BlockCounter = { blocked: 0 };
    await raceSignal(applyPageHooks(page, settings, counter), signal);
    idle = settings.waitUntil.endsWith("requestsfinished")
      ? new NetworkIdle(page, settings.waitUntil === "requestsfinished" ? 0 : 2)
      : undefined;
    const started = Date.now();
    const waitUntil = PUPPETEER_WAIT[settings.waitUntil];
    let response: PageResponse;
    if (target.url !== undefined) {
      const answer = await raceSignal(page.goto(target.url, { waitUntil, timeout: settings.timeoutMs }), signal);
      if (answer?.headers()[DENIED_HEADER] === "1") {
        throw translateError(new Error("refused by the address policy"), "loading the page", settings.policy);
      }
      response = { url: page.url(), status: answer?.status() };
    } else {
      // Init scripts run on new documents and the page's blank one predates them: make a new one
      // (`setContent` writes into the current document, keeping its globals).
      if (settings.initScripts?.length) await raceSignal(page.goto("about:blank"), signal);
      await raceSignal(page.setContent(target.html, { waitUntil, timeout: settings.timeoutMs }), signal);
      response = { url: page.url() };
    }
    if (idle) {
      const left = Math.max(1_000, settings.timeoutMs - (Date.now() - started));
      const quiet = await idle.wait(500, left, signal);
      if (!quiet)
        throw new RenderError("RenderTimeoutError", `The page kept loading for ${settings.timeoutMs} ms (${settings.waitUntil})`);
    }
    return { page, context, cdp, egress, response, counter };
  } catch (error) {
    idle?.dispose();
    // An abort can win the race against context creation: close the context once it exists.
    const opened = context ?? (await withTimeout(creating, 5_000).catch(() => undefined));
    if (opened) await withTimeout(opened.close(), 5_000).catch(() => undefined);
    await egress.close();
    throw translateError(error, "loading the page", target.url !== undefined ? settings.policy : undefined);
  }
}
