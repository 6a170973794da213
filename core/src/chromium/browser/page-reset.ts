import { randomUUID } from "node:crypto";
import { AddressPolicy, withTimeout } from "../../index.js";
import type { EgressSession } from "../network/egress-proxy.js";

/*
 * The reset of a page reused for the next render of its project (`PageShelf`, `reuseKey`):
 * what it clears, and how long it may take.
 */

/**
 * The policy of a page no render holds (a spare, a page on the shelf): it may reach nothing. The
 * render that takes the page gives the egress session its own.
 */
export const IDLE_POLICY = new AddressPolicy({
  lookup: async () => {
    throw new Error("no render holds this page");
  },
});

/** How long a page may take to answer before its reset gives up on it. */
const RESPONSIVE_MS = 1_000;

/** A DevTools session on the page being reset (the drivers' sessions all fit). */
export interface ResetChannel {
  // biome-ignore lint/suspicious/noExplicitAny: each command has its own parameters and answer
  send(method: any, params?: any): Promise<unknown>;
}

/**
 * Permissions a page can ask for by itself. Headless Chromium refuses such a request, and the
 * refusal stays with the browser context ("denied" from then on); no DevTools command clears it,
 * but an override set for every origin takes precedence: a page's first reset sets each to "prompt"
 * for its whole context, where it stays (no reused render changes permissions: geolocation
 * renders are never reused).
 */
const PROMPT_PERMISSIONS = [
  "notifications",
  "geolocation",
  "camera",
  "microphone",
  "midi",
  "persistent-storage",
  "clipboard-read",
  "clipboard-write",
  "background-sync",
  "screen-wake-lock",
  "storage-access",
  "window-management",
  "local-fonts",
  "idle-detection",
];

/** Sets every permission a page could ask for to "prompt" in the page's browser context. */
async function resetPermissions(cdp: ResetChannel): Promise<void> {
  const { targetInfo } = (await cdp.send("Target.getTargetInfo")) as { targetInfo: { browserContextId?: string } };
  const browserContextId = targetInfo.browserContextId;
  // Unknown names (an older Chromium) are refused one by one; the others still apply.
  await Promise.allSettled(
    PROMPT_PERMISSIONS.map((name) =>
      cdp.send("Browser.setPermission", { permission: { name }, setting: "prompt", browserContextId }),
    ),
  );
}

/** How often the reset asks whether `about:blank` has replaced the render's document. */
const COMMIT_CHECKS = 20;

/**
 * Waits until the document of the navigation `loaderId` (the reset's `about:blank`) is the page's
 * (the render's document is gone: no timer, worker or `pagehide` handler of it runs on). `Page.navigate`
 * answers before the new document commits: whatever is cleared earlier, the old one could write
 * again. The frame's loader tells the documents apart where the address cannot: an `html` render's
 * document is `about:blank` too.
 */
async function blankCommitted(cdp: ResetChannel, loaderId: string | undefined): Promise<void> {
  if (!loaderId) throw new Error("about:blank: no new document");
  for (let check = 0; check < COMMIT_CHECKS; check++) {
    const { frameTree } = (await cdp.send("Page.getFrameTree")) as { frameTree: { frame: { loaderId: string } } };
    if (frameTree.frame.loaderId === loaderId) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("about:blank did not replace the page");
}

/** Ends the render's document by a navigation to `about:blank`, and waits until it is gone. */
async function navigateToBlank(cdp: ResetChannel): Promise<void> {
  const navigated = (await cdp.send("Page.navigate", { url: "about:blank" })) as
    | { errorText?: string; loaderId?: string }
    | undefined;
  if (navigated?.errorText) throw new Error(`about:blank: ${navigated.errorText}`);
  await blankCommitted(cdp, navigated?.loaderId);
}

/**
 * How often the reset asks whether its `javascript:` address replaced the render's document. The
 * replacement runs before Chromium handles the next DevTools command: at the first check in every
 * one of 356 renders at c = 4 and 8. More checks would only delay the `about:blank` a page whose
 * policy refuses `javascript:` addresses needs.
 */
const REPLACE_CHECKS = 3;

/** The DevTools object group of the reset's handle on the render's document. */
const RESET_GROUP = "renderkit-reset";

/** What the reset's empty document is made of: a comment no page can know beforehand. */
const resetMark = () => `renderkit-reset ${randomUUID()}`;

/**
 * Ends the render's document the cheap way: a `javascript:` address whose result replaces it with
 * an empty document, made in the renderer without a navigation through the browser (at c = 4 a
 * reused page's render took about 12 % less CPU than with `about:blank`). The old document
 * unloads as it would for a navigation: its `pagehide` handlers run, its timers, workers and
 * scripts end with it.
 *
 * Nothing the page's scripts do can pass for that replacement:
 * - the render's main world is held by a DevTools handle on its `document`; the document is gone
 *   once Chromium no longer finds that handle's context;
 * - the document now in the frame must then hold the comment `mark`, which was never in reach of a
 *   page script, and which only the reset's own document carries (a document the render's scripts
 *   had put in place in the meantime could have scripts of its own);
 * - a navigation the render's document began is stopped (the browser would commit it later).
 *
 * The new document keeps the render's address (moving it with `history.replaceState` cost about
 * as much as the navigation saved). So the next render's navigation to that same address replaces
 * the history entry (its `history.length` is 1 where a new page's is 2), and one to a fragment of
 * it would stay in this document: `loadTarget` navigates to `about:blank` first then.
 *
 * False when the document stayed or is not the reset's own (a Content-Security-Policy refuses
 * `javascript:` addresses, JavaScript is off, the page put another document in its place): the
 * caller then navigates to `about:blank`. Throws when the page does not answer within
 * `RESPONSIVE_MS` (a script running on): the page is closed then.
 */
async function replaceDocument(cdp: ResetChannel): Promise<boolean> {
  const mark = resetMark();
  const expression = `location.href = ${JSON.stringify(`javascript:"<!--${mark}-->"`)}, document`;
  const evaluated = (await withTimeout(
    cdp.send("Runtime.evaluate", { expression, objectGroup: RESET_GROUP }),
    RESPONSIVE_MS,
  )) as { result?: { objectId?: string } };
  const objectId = evaluated.result?.objectId;
  if (!objectId) return false;
  for (let check = 0; check < REPLACE_CHECKS; check++) {
    if (check > 0) await new Promise((resolve) => setTimeout(resolve, 2));
    const gone = await cdp.send("Runtime.callFunctionOn", { objectId, functionDeclaration: "function () {}" }).then(
      () => false,
      () => true,
    );
    if (!gone) continue;
    // A navigation the render's document began and the browser still waits on would commit later.
    await cdp.send("Page.stopLoading");
    return (await markedBlank(cdp)) === mark;
  }
  await cdp.send("Runtime.releaseObjectGroup", { objectGroup: RESET_GROUP }).catch(() => undefined);
  return false;
}

/**
 * Empties the frame's `window.name` and answers the text of the document's first node (the reset's
 * mark, when the document is the reset's).
 */
async function markedBlank(cdp: ResetChannel): Promise<unknown> {
  const expression = `window.name = "", document.firstChild?.nodeValue`;
  const answer = (await cdp.send("Runtime.evaluate", { expression, returnByValue: true })) as {
    result?: { value?: unknown };
    exceptionDetails?: unknown;
  };
  return answer.exceptionDetails ? undefined : answer.result?.value;
}

/**
 * Checks that the page answers and ends the render's document (`replaceDocument`, or a navigation
 * to `about:blank` where that does not take): no script of the render runs on. Then clears what the
 * render left in its browser context: every cookie of the context, the storage of `origins` (local
 * and session storage, IndexedDB, Cache Storage, service workers, file systems), the HTTP cache,
 * the tab's history and its `window.name`. On a page's first reset (`firstReset`), it also sets the
 * answer to every permission a page can ask for to "prompt": an override of the whole context, which
 * stays. Throws when a step fails: the page must then be closed, not reused.
 */
export async function resetChromiumPage(
  cdp: ResetChannel,
  origins: Iterable<string>,
  { firstReset }: { firstReset: boolean },
): Promise<void> {
  if (!(await replaceDocument(cdp))) {
    await navigateToBlank(cdp);
    await cdp.send("Runtime.evaluate", { expression: "window.name = ''" });
  }
  const steps: Promise<unknown>[] = [
    cdp.send("Network.clearBrowserCookies"),
    cdp.send("Network.clearBrowserCache"),
    cdp.send("Page.resetNavigationHistory"),
  ];
  if (firstReset) steps.push(resetPermissions(cdp));
  for (const origin of origins) steps.push(cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" }));
  await Promise.all(steps);
}

/** How long a reset may take before the page is closed instead. */
const RESET_BUDGET_MS = 5_000;

/** What a driver gives `resetForReuse`: its page's state and the calls only it can make. */
export interface ReusablePage {
  /** The page's own DevTools session; undefined: the page cannot be reset. */
  cdp: ResetChannel | undefined;
  egress: EgressSession;
  /** True once the page is gone (crashed, closed). */
  closed(): boolean;
  /** Closes the other pages of the page's context (popups the render opened). */
  closeOthers(): Promise<unknown>;
  /** True when the page served one render so far: its context gets its permission overrides. */
  firstReset: boolean;
}

/**
 * Resets a page for the next render of its project: the proxy refusing everything while the page
 * waits, other pages of its context closed, and `resetChromiumPage`, within `RESET_BUDGET_MS`.
 * False when the page cannot be reused: it is gone, it went over its byte cap, it reached more
 * origins than the proxy remembers, or a step failed or took too long.
 */
export async function resetForReuse(page: ReusablePage): Promise<boolean> {
  const { cdp, egress } = page;
  const reached = egress.origins();
  if (!cdp || page.closed() || reached.overflowed || egress.limitError()) return false;
  egress.usePolicy(IDLE_POLICY);
  const reset = async () => {
    await page.closeOthers();
    await resetChromiumPage(cdp, reached.origins, { firstReset: page.firstReset });
    return true;
  };
  return withTimeout(reset(), RESET_BUDGET_MS).catch(() => false);
}
