import type { PageSettings, PageTarget } from "@renderkit/core";
import { raceSignal, withTimeout } from "@renderkit/core";
import {
  type DevtoolsSession,
  type EgressSession,
  type LoadedTarget,
  loadTarget,
  type PageLoader,
  type PreparedPage,
  pageHeaders,
  ResourceLog,
  scopeCookies,
} from "@renderkit/core/chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { devtoolsLinkOf } from "./connection.js";
import { translateError } from "./errors.js";
import { addTargetHeaders, applyPageHooks, type BlockCounter } from "./request-filter.js";
import { newContext } from "./spare-page.js";

/** A Playwright page set up for the render. */
export interface PlaywrightPage extends PreparedPage {
  page: Page;
  counter: BlockCounter;
  /** The per-render settings the page holds now (a reused page skips saying them again). */
  applied: AppliedSettings;
}

/** The extra headers (as JSON) and the emulated media a page was last given. */
export interface AppliedSettings {
  headers: string;
  media: string;
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
  devtools?: DevtoolsSession;
  reused?: boolean;
  /** What a reused page was last given (`AppliedSettings`). */
  applied?: AppliedSettings;
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
 * A DevTools session on `page` of our own, over the browser's `DevtoolsLink` (Playwright's
 * `CDPSession` costs several times the Node time a call). Playwright names no target id: a
 * session of its own asks Chromium for it once.
 */
async function pageDevtools(browser: Browser, context: BrowserContext, page: Page): Promise<DevtoolsSession> {
  const link = devtoolsLinkOf(browser);
  if (!link) throw new Error("this browser has no DevTools link (it was not connected by connectPlaywright)");
  const probe = await context.newCDPSession(page);
  try {
    const { targetInfo } = await probe.send("Target.getTargetInfo");
    return await link.attach(targetInfo.targetId);
  } finally {
    await probe.detach().catch(() => undefined);
  }
}

/**
 * Opens the page (or takes the ready one), with every setting that must precede navigation. A
 * reused page has its per-render settings (headers, media) said again where they differ from the
 * last render's, which stay; `keep`: the page may be reused, so it gets a DevTools session it
 * keeps for its life.
 */
async function preparePage(
  browser: Browser,
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
  // A new page has no extra headers and the browser's media: `last` stands for that.
  const last = (ready?.reused === true && ready.applied) || { headers: "{}", media: "" };
  const headers = pageHeaders(target, settings);
  const applied: AppliedSettings = { headers: JSON.stringify(headers.everywhere), media: settings.media ?? "" };
  await addTargetHeaders(context, page, headers.target);
  page.setDefaultTimeout(settings.timeoutMs);
  const size = page.viewportSize();
  // A DevTools session of its own that lives as long as the page (closed with the context): the
  // resource log, the main document's redirects while `loadTarget` navigates, a reused page's reset.
  const devtools =
    ready?.devtools ??
    (keep || settings.recordResources || target.url !== undefined
      ? await raceSignal(pageDevtools(browser, context, page), signal)
      : undefined);
  const steps: Promise<unknown>[] = [];
  if (size?.width !== settings.width || size?.height !== settings.height) {
    steps.push(page.setViewportSize({ width: settings.width, height: settings.height }));
  }
  // Only what may go to every origin: the caller's own headers go to the target's (`addTargetHeaders`).
  if (applied.headers !== last.headers) steps.push(page.setExtraHTTPHeaders(headers.everywhere));
  if (applied.media !== last.media) {
    steps.push(page.emulateMedia({ media: settings.media ?? null }));
    // Chromium keeps emulated media per DevTools session, and a second session on the page drops
    // the first one's for printing: say it on this session too.
    if (devtools) steps.push(devtools.send("Emulation.setEmulatedMedia", { media: applied.media }));
  }
  await raceSignal(Promise.all(steps), signal);
  const resources = settings.recordResources && devtools ? await raceSignal(ResourceLog.attach(devtools), signal) : undefined;
  return { page, counter, resources, devtools, applied };
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
    preparePage: (context, signal) => preparePage(browser, context, target, settings, signal, ready, keep),
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
