import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ResetChannel } from "@renderkit/core/chromium";
import type { CDPSession, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetChromiumPage } from "../../core/dist/chromium/browser/page-reset.js";
import { useLaunchedChromium } from "../helpers/launched-chromium.js";

/*
 * The reset of a reused page ends the render's document with a `javascript:` address (an empty
 * document made in the renderer, no navigation through the browser), and navigates to
 * `about:blank` where that does not take. Whichever way, no script of the render may write after
 * the reset cleared what it left. `test/e2e/page-reuse.test.ts` proves the whole reset through
 * renders on both engines; this file drives `resetChromiumPage` on pages built to get around it.
 */

/** A timer, a worker and a pagehide handler, all writing to the origin's storage and cookies. */
const WRITERS = `
  const write = (by) => { localStorage.setItem("late", by); document.cookie = "late=" + by + "; max-age=3600"; };
  setInterval(() => write("timer"), 1);
  addEventListener("pagehide", () => write("pagehide"));
  window.name = "left-behind";
  new Worker("/worker.js");
  document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>");`;

const WORKER = `setInterval(() => {
  const open = indexedDB.open("late-worker", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("x");
  open.onsuccess = () => open.result.close();
}, 1);`;

/** A document the page's own `javascript:` address makes, with writers of its own. */
const OWN_DOCUMENT = `javascript:"<p>own</p><script>window.own = 1; setInterval(() => localStorage.setItem('late', 'own'), 1)</script>"`;

const PAGES: Record<string, { body: string; type?: string; headers?: Record<string, string>; delayMs?: number }> = {
  "/writers": { body: `<!doctype html><body><script>${WRITERS}</script></body>` },
  // A page whose Content-Security-Policy refuses inline scripts, and so `javascript:` addresses.
  "/strict": {
    body: `<!doctype html><body><script src="/writers.js"></script></body>`,
    headers: { "content-security-policy": "script-src 'self'" },
  },
  "/empty": { body: "<!doctype html><p>empty</p>" },
  "/writers.js": { body: WRITERS, type: "text/javascript" },
  "/worker.js": { body: WORKER, type: "text/javascript" },
  // Starts a navigation as soon as it has loaded: its answer comes long after the reset.
  "/leaving": {
    body: `<!doctype html><body><script>${WRITERS}
      addEventListener("load", () => setTimeout(() => { location.href = "/slow"; }, 0));</script></body>`,
  },
  "/slow": { body: `<!doctype html><body><script>window.own = 1; ${WRITERS}</script></body>`, delayMs: 500 },
};

let server: Server;
let origin = "";
/** Paths asked for, in order. */
const asked: string[] = [];
/** Paths answered (the answer sent whole), in order. */
const answered: string[] = [];
const launched = useLaunchedChromium();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    asked.push(path);
    const page = PAGES[path];
    if (!page) return void res.writeHead(404).end();
    const answer = () => {
      res.writeHead(200, { "content-type": page.type ?? "text/html", ...page.headers });
      res.end(page.body, () => answered.push(path));
    };
    if (page.delayMs) setTimeout(answer, page.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

let opened: { page: Page; cdp: CDPSession } | undefined;

afterEach(async () => {
  await opened?.page.context().close();
  opened = undefined;
});

/** A page of a new context at `path`, once its writers run, and its DevTools session. */
async function pageAt(path: string): Promise<{ page: Page; cdp: CDPSession }> {
  const context = await launched.browser.newContext();
  const page = await context.newPage();
  opened = { page, cdp: await context.newCDPSession(page) };
  await page.goto(`${origin}${path}`);
  await page.waitForSelector("#done");
  return opened;
}

const loaderId = async (cdp: CDPSession) => (await cdp.send("Page.getFrameTree")).frameTree.frame.loaderId;

/**
 * What the page holds once its writers had time to write again (the timer writes every
 * millisecond): the document's address, whether a script of the page's own lives in it, and what
 * the origin's storage and cookies hold.
 */
async function leftOver(cdp: CDPSession, originOfStorage = origin) {
  await cdp.send("Runtime.evaluate", { expression: "new Promise((done) => setTimeout(done, 100))", awaitPromise: true });
  const { result } = await cdp.send("Runtime.evaluate", {
    expression: `({ url: location.href, own: typeof window.own, name: window.name, body: document.body?.innerHTML ?? "" })`,
    returnByValue: true,
  });
  const { cookies } = await cdp.send("Network.getCookies", { urls: [originOfStorage] });
  // The origin's storage, read from a page of the same context that has no script of its own.
  const reader = await (opened?.page.context() ?? launched.browser).newPage();
  try {
    await reader.goto(`${originOfStorage}/empty`);
    const stored = await reader.evaluate(async () => ({
      storage: Object.keys(localStorage),
      databases: (await indexedDB.databases()).map((d) => d.name),
    }));
    return { ...result.value, cookies: cookies.map((c) => c.name), ...stored };
  } finally {
    await reader.close();
  }
}

/**
 * The page's DevTools session as the reset's channel, running `act` first when the reset sends a
 * command `when` picks: a page script or navigation at that very moment.
 */
function actingBefore(
  cdp: CDPSession,
  when: (method: string, params?: { expression?: string }) => boolean,
  act: () => Promise<unknown>,
): ResetChannel {
  return {
    async send(method: string, params?: { expression?: string }) {
      if (when(method, params)) await act();
      return cdp.send(method as "Runtime.evaluate", params as never);
    },
  };
}

const NOTHING = { own: "undefined", name: "", body: "", cookies: [], storage: [], databases: [] };

describe("the reset of a reused page", () => {
  it("ends the render's document without a navigation, and nothing of it writes again", async () => {
    const { cdp } = await pageAt("/writers");
    const before = await loaderId(cdp);
    await resetChromiumPage(cdp, [origin], { firstReset: true });
    // The frame's loader is the render's: no navigation went through the browser.
    expect(await loaderId(cdp)).toBe(before);
    // The reset's document keeps the render's address.
    expect(await leftOver(cdp)).toEqual({ ...NOTHING, url: `${origin}/writers` });
  }, 60_000);

  it("navigates to about:blank when the page's Content-Security-Policy refuses javascript: addresses", async () => {
    const { cdp } = await pageAt("/strict");
    const before = await loaderId(cdp);
    await resetChromiumPage(cdp, [origin], { firstReset: true });
    expect(await loaderId(cdp)).not.toBe(before);
    const { url, ...rest } = await leftOver(cdp);
    expect(url).toBe("about:blank");
    expect(rest).toEqual(NOTHING);
  }, 60_000);

  it("does not take a document the page's own javascript: address made for the reset's", async () => {
    const { cdp } = await pageAt("/writers");
    // The page asks for a document of its own just before the reset asks for its empty one.
    const channel = actingBefore(
      cdp,
      (method, params) => method === "Runtime.evaluate" && params?.expression?.startsWith("location.href") === true,
      () => cdp.send("Runtime.evaluate", { expression: `location.href = ${JSON.stringify(OWN_DOCUMENT)}; 0` }),
    );
    await resetChromiumPage(channel, [origin], { firstReset: true });
    const { url, ...rest } = await leftOver(cdp);
    expect(rest).toEqual(NOTHING);
    expect([`${origin}/writers`, "about:blank"]).toContain(url);
  }, 60_000);

  it("does not take a document that replaced the render's in the meantime for the reset's", async () => {
    const { cdp } = await pageAt("/writers");
    // Once the render's document is gone, another document with writers of its own is in its place
    // (one that a navigation of the page's committed before the reset's empty document).
    const channel = actingBefore(
      cdp,
      (method) => method === "Page.stopLoading",
      async () => {
        const { loaderId: other } = await cdp.send("Page.navigate", { url: `${origin}/slow` });
        await expect.poll(() => loaderId(cdp)).toBe(other);
        await expect.poll(async () => (await cdp.send("Runtime.evaluate", { expression: "window.own" })).result.value).toBe(1);
      },
    );
    await resetChromiumPage(channel, [origin], { firstReset: true });
    const { url, ...rest } = await leftOver(cdp);
    expect(url).toBe("about:blank");
    expect(rest).toEqual(NOTHING);
  }, 60_000);

  it("stops a navigation the render's document began: it does not commit after the reset", async () => {
    const { cdp } = await pageAt("/leaving");
    await expect.poll(() => asked.includes("/slow")).toBe(true);
    await resetChromiumPage(cdp, [origin], { firstReset: true });
    // /slow answers 500 ms after it was asked for: once it did, the page must be the reset's still.
    await expect.poll(() => answered.includes("/slow"), { timeout: 10_000 }).toBe(true);
    // (The reset's document may take the address of the navigation it stopped: nothing of either runs.)
    const { url, ...rest } = await leftOver(cdp);
    expect(rest).toEqual(NOTHING);
    expect([`${origin}/leaving`, `${origin}/slow`]).toContain(url);
  }, 60_000);

  it("replaces an html render's document too, which stays about:blank", async () => {
    const context = await launched.browser.newContext();
    const page = await context.newPage();
    opened = { page, cdp: await context.newCDPSession(page) };
    const { cdp } = opened;
    await page.setContent(`<p>html</p><script>window.name = "left-behind";
      setInterval(() => { window.name = "late"; }, 1);
      addEventListener("pagehide", () => { window.name = "late"; });</script>`);
    const before = await loaderId(cdp);
    await resetChromiumPage(cdp, [], { firstReset: true });
    expect(await loaderId(cdp)).toBe(before);
    await cdp.send("Runtime.evaluate", { expression: "new Promise((done) => setTimeout(done, 100))", awaitPromise: true });
    const { result } = await cdp.send("Runtime.evaluate", {
      expression: `[location.href, window.name, document.body.innerHTML]`,
      returnByValue: true,
    });
    expect(result.value).toEqual(["about:blank", "", ""]);
  }, 60_000);
});
