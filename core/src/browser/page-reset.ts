import { AddressPolicy } from "../network/address-policy.js";
import type { EgressSession } from "../network/egress-proxy.js";
import { withTimeout } from "../util/timeout.js";

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
 * (the render's document is gone: no timer, worker or `pagehide` handler of it runs on), and
 * empties `window.name` there. `Page.navigate` answers before the new document commits: whatever
 * is cleared earlier, the old one could write again. The frame's loader tells the documents apart
 * where the address cannot: an `html` render's document is `about:blank` too.
 */
async function blankCommitted(cdp: ResetChannel, loaderId: string | undefined): Promise<void> {
  if (!loaderId) throw new Error("about:blank: no new document");
  for (let check = 0; check < COMMIT_CHECKS; check++) {
    const { frameTree } = (await cdp.send("Page.getFrameTree")) as { frameTree: { frame: { loaderId: string } } };
    if (frameTree.frame.loaderId === loaderId) {
      await cdp.send("Runtime.evaluate", { expression: "window.name = ''" });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("about:blank did not replace the page");
}

/**
 * Checks that the page answers, navigates it to `about:blank` and waits until that replaced the
 * render's document (no script of the render runs on), then clears what the render left in its
 * browser context: every cookie of the context, the storage of `origins` (local and session
 * storage, IndexedDB, Cache Storage, service workers, file systems), the HTTP cache, the tab's
 * history and its `window.name`. On a page's first reset (`firstReset`), it also sets the answer
 * to every permission a page can ask for to "prompt": an override of the whole context, which
 * stays. Throws when a step fails: the page must then be closed, not reused.
 */
export async function resetChromiumPage(
  cdp: ResetChannel,
  origins: Iterable<string>,
  { firstReset }: { firstReset: boolean },
): Promise<void> {
  // A page still running a script (a render aborted over a busy loop) does not answer: it is closed.
  await withTimeout(cdp.send("Runtime.evaluate", { expression: "0" }), RESPONSIVE_MS);
  const navigated = (await cdp.send("Page.navigate", { url: "about:blank" })) as
    | { errorText?: string; loaderId?: string }
    | undefined;
  if (navigated?.errorText) throw new Error(`about:blank: ${navigated.errorText}`);
  await blankCommitted(cdp, navigated?.loaderId);
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
