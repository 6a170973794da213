import type { PageSettings, PageTarget } from "@renderkit/core";
import { raceSignal, withTimeout } from "@renderkit/core";
import {
  type EgressSession,
  type LoadedTarget,
  loadTarget,
  type PageLoader,
  type PreparedPage,
  pageHeaders,
  ResourceLog,
  scopeCookies,
} from "@renderkit/core/chromium";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { translateError } from "./errors.js";
import { addTargetHeaders, applyPageHooks, type BlockCounter } from "./request-filter.js";
import { newContext } from "./spare-page.js";

/** A Playwright page set up for the render. */
export interface PlaywrightPage extends PreparedPage {
  page: Page;
  counter: BlockCounter;
}

export type LoadedPage = LoadedTarget<BrowserContext, PlaywrightPage>;

/**
 * A context and page opened before the render: a spare nobody used yet, or a page that served an
 * earlier render of the same project and was reset (`reused`, with the DevTools session it keeps).
 */
export interface ReadyPage {
  context: BrowserContext;
  page: Page;
  egress: EgressSession;
  devtools?: CDPSession;
  reused?: boolean;
}

/**
 * The `cookies` option, scoped by core's rule. Playwright refuses a path beside a url: a cookie
 * without Domain gets the url's directory as its path, as `addCookies` derives it.
 */
async function addCookies(context: BrowserContext, target: PageTarget, settings: PageSettings): Promise<void> {
  if (settings.cookies.length === 0) return;
  const cookies = scopeCookies(settings.cookies, target).map(({ url, path, ...c }) =>
    url === undefined
      ? { ...c, path }
      : { name: c.name, value: c.value, url, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite },
  );
  await context.addCookies(cookies);
}

/**
 * Opens the page (or takes the ready one), with every setting that must precede navigation. A
 * reused page has its per-render settings said again (headers, media), since the last render's
 * stay; `keep`: the page may be reused, so it gets a DevTools session it keeps for its life.
 */
async function preparePage(
  context: BrowserContext,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  ready: ReadyPage | undefined,
  keep: boolean,
): Promise<PlaywrightPage> {
  await addCookies(context, target, settings);
  const counter: BlockCounter = { blocked: 0 };
  await applyPageHooks(context, settings, counter);
  const page = ready?.page ?? (await raceSignal(context.newPage(), signal));
  const reused = ready?.reused === true;
  const headers = pageHeaders(target, settings);
  await addTargetHeaders(context, page, headers.target);
  const size = page.viewportSize();
  if (size?.width !== settings.width || size?.height !== settings.height) {
    await page.setViewportSize({ width: settings.width, height: settings.height });
  }
  // Only what may go to every origin: the caller's own headers go to the target's (`addTargetHeaders`).
  if (reused || Object.keys(headers.everywhere).length > 0) await page.setExtraHTTPHeaders(headers.everywhere);
  page.setDefaultTimeout(settings.timeoutMs);
  if (reused || settings.media) await page.emulateMedia({ media: settings.media ?? null });
  // A DevTools session of its own that lives as long as the page (closed with the context): the
  // resource log, the main document's redirects while `loadTarget` navigates, a reused page's reset.
  const devtools =
    ready?.devtools ??
    (keep || settings.recordResources || target.url !== undefined
      ? await raceSignal(context.newCDPSession(page), signal)
      : undefined);
  // Chromium keeps emulated media per DevTools session, and a second session on the page drops
  // the first one's for printing: say it on this session too.
  if (devtools && (reused || settings.media))
    await raceSignal(devtools.send("Emulation.setEmulatedMedia", { media: settings.media ?? "" }), signal);
  const resources = settings.recordResources && devtools ? await raceSignal(ResourceLog.attach(devtools), signal) : undefined;
  return { page, counter, resources, devtools };
}

/** Playwright's calls for core's load skeleton; `ready` is a context and page opened ahead. */
function playwrightLoader(
  browser: Browser,
  target: PageTarget,
  settings: PageSettings,
  ready: ReadyPage | undefined,
  keep: boolean,
): PageLoader<BrowserContext, PlaywrightPage> {
  return {
    newContext: (egress) => newContext(browser, settings, egress),
    closeContext: (context) => context.close(),
    preparePage: (context, signal) => preparePage(context, target, settings, signal, ready, keep),
    watchRequests: ({ page }) => {
      return (started, ended) => {
        page.on("request", started).on("requestfinished", ended).on("requestfailed", ended);
        return () => page.off("request", started).off("requestfinished", ended).off("requestfailed", ended);
      };
    },
    goto: async ({ page }, url, options) => {
      const answer = await page.goto(url, { waitUntil: options.waitUntil, timeout: options.timeoutMs });
      if (!answer) return undefined;
      return {
        status: answer.status(),
        headers: answer.headers(),
        // `allHeaders` has what `headers` leaves out (set-cookie); it waits for the raw headers, so bounded.
        allHeaders: () => withTimeout(answer.allHeaders(), 5_000).catch(() => answer.headers()),
      };
    },
    setContent: ({ page }, html, options) => page.setContent(html, { waitUntil: options.waitUntil, timeout: options.timeoutMs }),
    url: ({ page }) => page.url(),
    translate: translateError,
    // Init scripts added to a context run in its pages' first documents, but not in a ready page's: it predates them.
    documentPredatesInitScripts: ready !== undefined,
  };
}

/**
 * Opens a context behind a fresh egress proxy (or takes the ready one's), loads the target and
 * waits as asked (core's `loadTarget`). Everything opened here is closed again when loading fails.
 * `keep`: the page may serve later renders (it keeps a DevTools session for its reset).
 */
export function loadPage(
  browser: Browser,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  ready?: ReadyPage,
  keep = false,
): Promise<LoadedPage> {
  return loadTarget(playwrightLoader(browser, target, settings, ready, keep), target, settings, signal, ready);
}
