import {
  type AddressChecker,
  type PageResponse,
  type PageSettings,
  type PageTarget,
  type RenderError,
  raceSignal,
  withTimeout,
} from "../../index.js";
import { type EgressSession, openEgressSession } from "../network/egress-proxy.js";
import { checkProxyAnswer, type DevtoolsChannel, watchMainDocument } from "../network/navigation-failure.js";
import { NetworkIdle, type WatchRequests } from "../page/network-idle.js";
import type { ResourceLog } from "../page/resource-log.js";

/** The page events both drivers can wait for; the request-count waits are `NetworkIdle`'s. */
export type DriverWaitUntil = "domcontentloaded" | "load";

const DRIVER_WAIT: Record<PageSettings["waitUntil"], DriverWaitUntil> = {
  domloaded: "domcontentloaded",
  loaded: "load",
  requestsfinished: "load",
  mostrequestsfinished: "load",
};

/** How long navigation and writing html may take. */
export interface NavigateOptions {
  waitUntil: DriverWaitUntil;
  timeoutMs: number;
}

/** The main document's answer, read from the driver's response. */
export interface DriverAnswer {
  status: number;
  /** The headers the driver has at once; the egress proxy's marker headers are among them. */
  headers: Record<string, string>;
  /** Every response header, `set-cookie` included, as far as the driver can tell. */
  allHeaders(): Promise<Record<string, string>>;
}

/** A page the driver opened and set up, ready to navigate; the driver adds what its session needs. */
export interface PreparedPage {
  /** What `settings.requestFilter` blocked so far. */
  counter: { blocked: number };
  /** The page's requests (`settings.recordResources`). */
  resources?: ResourceLog;
  /**
   * The page's own DevTools session, when the driver has one: `loadTarget` reads the main
   * document's redirects from it, to name a redirect the browser refused (`view-source:`).
   */
  devtools?: DevtoolsChannel;
}

/**
 * A driver's part of loading one page. `loadTarget` orders the steps, applies the checks every
 * engine must make and cleans up; the driver only makes the calls.
 */
export interface PageLoader<C, P extends PreparedPage> {
  /** Opens the render's browser context with every connection, loopback included, through `egress`. */
  newContext(egress: EgressSession): Promise<C>;
  /** Closes the context and so its pages (bounded by the caller). */
  closeContext(context: C): Promise<void>;
  /** Opens the page in `context` and applies every setting that must precede navigation. */
  preparePage(context: C, signal: AbortSignal): Promise<P>;
  /** Subscribes to the page's request start and end events (the request-count waits). */
  watchRequests(page: P): WatchRequests;
  /** Navigates the page; undefined when the driver has no answer (about:blank, same-document). */
  goto(page: P, url: string, options: NavigateOptions): Promise<DriverAnswer | undefined>;
  /** Writes `html` as the page's document. */
  setContent(page: P, html: string, options: NavigateOptions): Promise<void>;
  /** The address of the page's document now. */
  url(page: P): string;
  /** The driver's error translation (`translateDriverError` with its kinds). */
  translate(error: unknown, what: string, policy?: AddressChecker): RenderError;
  /**
   * True when the prepared page's blank document was made before the init scripts were added:
   * they only run on new documents, and `setContent` writes into the current one (keeping its
   * globals), so html gets a fresh document first.
   */
  readonly documentPredatesInitScripts: boolean;
}

/** A context opened ahead of need (prewarming, or a reused page) with its own egress session. */
export interface PrewarmedContext<C> {
  context: C;
  egress: EgressSession;
}

/** A loaded page: the driver's prepared page, its context, its egress session and the main document's answer. */
export type LoadedTarget<C, P extends PreparedPage> = P & { context: C; egress: EgressSession; response: PageResponse };

/**
 * Runs `goto` with the main document watched through `page.devtools` (when the driver has a session):
 * a failure after a redirect to a scheme other than http(s) is that redirect's `InvalidURLError`,
 * which the browser's own error (`ERR_ABORTED`) does not tell. The Network domain stays on when
 * the resource log listens on the same session.
 */
async function navigate<T>(page: PreparedPage, signal: AbortSignal, goto: () => Promise<T>): Promise<T> {
  const watch = page.devtools && (await raceSignal(watchMainDocument(page.devtools), signal));
  try {
    return await raceSignal(goto(), signal);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    throw (!signal.aborted && ((await watch?.refusedRedirect(text)) ?? (await watch?.notAPage(text)))) || error;
  } finally {
    await withTimeout(watch?.stop(page.resources !== undefined) ?? Promise.resolve(), 5_000).catch(() => undefined);
  }
}

/** True when navigating from `current` to `url` would stay in the document: `url` is a fragment of it. */
function fragmentOf(url: string, current: string): boolean {
  if (!url.includes("#")) return false;
  const withoutFragment = (address: string) => {
    const parsed = URL.parse(address);
    if (parsed) parsed.hash = "";
    return parsed?.href;
  };
  const base = withoutFragment(current);
  return base !== undefined && withoutFragment(url) === base;
}

/**
 * Opens a context behind a fresh egress proxy (or takes a prewarmed one and gives its proxy the
 * render's policy), prepares the page, loads the target and waits as `settings` asks. A main
 * document answered by the proxy itself (a refused or unreachable address) fails the load.
 * Everything opened here is closed again when loading fails, a context that an abort outran
 * included, and the error is the driver's, translated.
 */
export async function loadTarget<C, P extends PreparedPage>(
  loader: PageLoader<C, P>,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  prewarmed?: PrewarmedContext<C>,
): Promise<LoadedTarget<C, P>> {
  const egress = prewarmed?.egress ?? (await openEgressSession(settings.policy, settings.proxy, settings.egressLimits));
  if (prewarmed) egress.usePolicy(settings.policy, settings.proxy, settings.egressLimits);
  // A page over its byte cap ends the load at once (the browser may go on waiting for what was cut):
  // every step below sees the combined signal.
  signal = AbortSignal.any([signal, egress.limitSignal]);
  let context: C | undefined = prewarmed?.context;
  let creating: Promise<C> | undefined;
  let idle: NetworkIdle | undefined;
  try {
    if (context === undefined) {
      creating = loader.newContext(egress);
      context = await raceSignal(creating, signal);
    }
    const page = await loader.preparePage(context, signal);
    idle = NetworkIdle.forSettings(settings, loader.watchRequests(page));
    const started = Date.now();
    const options = { waitUntil: DRIVER_WAIT[settings.waitUntil], timeoutMs: settings.timeoutMs };
    let response: PageResponse;
    if (target.url !== undefined) {
      const url = target.url;
      // A reused page's reset leaves an empty document at the last render's address (page-reset.ts):
      // from there, a fragment of that address would be a same-document navigation.
      if (fragmentOf(url, loader.url(page))) {
        await raceSignal(loader.goto(page, "about:blank", { waitUntil: "load", timeoutMs: settings.timeoutMs }), signal);
      }
      const answer = await navigate(page, signal, () => loader.goto(page, url, options));
      checkProxyAnswer(answer?.headers, settings.policy);
      const headers = answer ? await answer.allHeaders() : undefined;
      response = { url: loader.url(page), status: answer?.status, headers };
    } else {
      // A reused page's reset leaves an empty document at the last render's address (page-reset.ts):
      // html is written into a blank one, as on a new page.
      if ((loader.documentPredatesInitScripts && settings.initScripts?.length) || loader.url(page) !== "about:blank") {
        await raceSignal(loader.goto(page, "about:blank", { waitUntil: "load", timeoutMs: settings.timeoutMs }), signal);
      }
      await raceSignal(loader.setContent(page, target.html, options), signal);
      response = { url: loader.url(page) };
    }
    await idle?.settle(settings, started, signal);
    // A page over its byte cap was cut off: what loaded is not the page (the error is the cap's).
    const over = egress.limitError();
    if (over) throw over;
    return { ...page, context, egress, response };
  } catch (error) {
    idle?.dispose();
    const opened = context ?? (creating && (await withTimeout(creating, 5_000).catch(() => undefined)));
    if (opened !== undefined) await withTimeout(loader.closeContext(opened), 5_000).catch(() => undefined);
    await egress.close();
    throw (
      egress.limitError() ?? loader.translate(error, "loading the page", target.url !== undefined ? settings.policy : undefined)
    );
  }
}
