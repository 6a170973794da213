import {
  type EgressSession,
  openEgressSession,
  type PageResponse,
  type PageSettings,
  type PageTarget,
  RenderError,
  raceSignal,
  withTimeout,
} from "@renderkit/core";
import type { Browser, BrowserContext, Page, Response } from "playwright-core";
import { translateError } from "./errors.js";
import { NetworkIdle } from "./network-idle.js";
import { applyPageHooks, type BlockCounter } from "./request-filter.js";
import { newContext, type SparePage } from "./spare-page.js";

export interface LoadedPage {
  page: Page;
  context: BrowserContext;
  egress: EgressSession;
  response: PageResponse;
  /** What `settings.requestFilter` blocked so far. */
  counter: BlockCounter;
}

const PLAYWRIGHT_WAIT = {
  domloaded: "domcontentloaded",
  loaded: "load",
  requestsfinished: "load",
  mostrequestsfinished: "load",
} as const;

function refusedByProxy(response: Response | null): boolean {
  return response?.headers()["x-renderkit-denied"] === "1";
}

/** Checks the target's own address first, for a clear error before any browser work. */
export async function checkTarget(target: PageTarget, settings: PageSettings): Promise<void> {
  if (target.url === undefined) return;
  const url = new URL(target.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RenderError("InvalidURLError", `Only http and https addresses can be rendered, not ${url.protocol}`);
  }
  await settings.policy.resolve(url.hostname, Number(url.port || (url.protocol === "https:" ? 443 : 80)));
}

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
  const egress = spare?.egress ?? (await openEgressSession(settings.policy));
  egress.usePolicy(settings.policy);
  let context: BrowserContext | undefined = spare?.context;
  try {
    context ??= await raceSignal(newContext(browser, settings, egress), signal);
    await addCookies(context, target, settings);
    const counter: BlockCounter = { blocked: 0 };
    await applyPageHooks(context, settings, counter);
    const page = spare?.page ?? (await raceSignal(context.newPage(), signal));
    const size = page.viewportSize();
    if (size?.width !== settings.width || size?.height !== settings.height) {
      await page.setViewportSize({ width: settings.width, height: settings.height });
    }
    if (Object.keys(settings.headers).length > 0) await page.setExtraHTTPHeaders(settings.headers);
    page.setDefaultTimeout(settings.timeoutMs);
    if (settings.media) await page.emulateMedia({ media: settings.media });
    const idle = settings.waitUntil.endsWith("requestsfinished")
      ? new NetworkIdle(page, settings.waitUntil === "requestsfinished" ? 0 : 2)
      : undefined;
    const started = Date.now();
    const waitUntil = PLAYWRIGHT_WAIT[settings.waitUntil];
    let response: PageResponse;
    if (target.url !== undefined) {
      const answer = await raceSignal(page.goto(target.url, { waitUntil, timeout: settings.timeoutMs }), signal);
      if (refusedByProxy(answer))
        throw translateError(new Error("refused by the address policy"), "loading the page", settings.policy);
      response = { url: page.url(), status: answer?.status() };
    } else {
      // Init scripts run on new documents; a spare's blank document predates them, so make a new one.
      if (spare && settings.initScripts?.length) await raceSignal(page.goto("about:blank"), signal);
      await raceSignal(page.setContent(target.html, { waitUntil, timeout: settings.timeoutMs }), signal);
      response = { url: page.url() };
    }
    if (idle) {
      const left = Math.max(1_000, settings.timeoutMs - (Date.now() - started));
      const quiet = await idle.wait(500, left, signal);
      if (!quiet)
        throw new RenderError("RenderTimeoutError", `The page kept loading for ${settings.timeoutMs} ms (${settings.waitUntil})`);
    }
    return { page, context, egress, response, counter };
  } catch (error) {
    if (context) await withTimeout(context.close(), 5_000).catch(() => undefined);
    await egress.close();
    throw translateError(error, "loading the page", target.url !== undefined ? settings.policy : undefined);
  }
}
