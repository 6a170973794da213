import { createServer, type Server } from "node:http";
import { DevtoolsError, DevtoolsLink, type DevtoolsSession, findChromium } from "@renderkit/core/chromium";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChromiumProcess } from "../../core/dist/chromium/browser/chromium-process.js";

/**
 * renderkit's own DevTools client (`DevtoolsLink`), which carries a reused page's reset and its
 * capture beside the driver's connection. Against a real Chromium: answers, errors, events kept to
 * their page's session, and every call waiting when its page, session or connection ends fails
 * as gone (the engines turn that into "the browser went away").
 */

let proc: ChromiumProcess;
let server: Server;
let base: string;
const links: DevtoolsLink[] = [];

beforeAll(async () => {
  proc = await ChromiumProcess.launch({ executablePath: findChromium() });
  server = createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(`<title>${req.url}</title><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}, 60_000);
afterAll(async () => {
  await proc?.kill();
  await new Promise((resolve) => server?.close(resolve));
});
afterEach(() => {
  for (const link of links.splice(0)) link.close();
});

async function connect(): Promise<DevtoolsLink> {
  const link = await DevtoolsLink.connect(proc.wsEndpoint);
  links.push(link);
  return link;
}

/** A new page of its own context, and a session on it. */
async function newPage(link: DevtoolsLink): Promise<{ targetId: string; session: DevtoolsSession }> {
  const { browserContextId } = await link.send("Target.createBrowserContext");
  const { targetId } = await link.send("Target.createTarget", { url: "about:blank", browserContextId });
  return { targetId, session: await link.attach(targetId) };
}

/** The call's rejection (it must reject). */
async function failureOf(call: Promise<unknown>): Promise<DevtoolsError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DevtoolsError);
  return error as DevtoolsError;
}

/** A call that answers only when its page ends: a promise in the page that never settles. */
const never = (session: DevtoolsSession) =>
  session.send("Runtime.evaluate", { expression: "new Promise(() => {})", awaitPromise: true });

describe("DevtoolsLink (real Chromium)", () => {
  it("answers calls on each page's session, and each session hears its own page's events only", async () => {
    const link = await connect();
    const one = await newPage(link);
    const two = await newPage(link);
    const heard: Record<string, string[]> = { one: [], two: [] };
    one.session.on("Page.frameNavigated", (e: { frame: { url: string } }) => heard.one?.push(e.frame.url));
    two.session.on("Page.frameNavigated", (e: { frame: { url: string } }) => heard.two?.push(e.frame.url));
    await Promise.all([one.session.send("Page.enable"), two.session.send("Page.enable")]);
    const loaded = new Promise((resolve) => one.session.on("Page.loadEventFired", resolve));
    await one.session.send("Page.navigate", { url: `${base}/one` });
    await loaded;
    const { result } = await one.session.send("Runtime.evaluate", { expression: "document.title", returnByValue: true });
    expect(result.value).toBe("/one");
    const shot = await one.session.send("Page.captureScreenshot", { format: "png" });
    expect(Buffer.from(shot.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(heard).toEqual({ one: [`${base}/one`], two: [] });
  });

  it("says Chromium's refusal with the method's name, and the session goes on", async () => {
    const link = await connect();
    const { session } = await newPage(link);
    const refused = await failureOf(session.send("Page.navigate", { url: 42 }));
    expect(refused.message).toMatch(/^Page\.navigate: .*Invalid parameters/);
    expect(refused.gone).toBe(false);
    expect(await failureOf(session.send("No.suchMethod"))).toMatchObject({ gone: false });
    const { result } = await session.send("Runtime.evaluate", { expression: "6 * 7", returnByValue: true });
    expect(result.value).toBe(42);
  });

  it("a page closed under a call: the call and every later one on its session fail as gone", async () => {
    const link = await connect();
    const { targetId, session } = await newPage(link);
    const waiting = failureOf(never(session));
    await link.send("Target.closeTarget", { targetId });
    expect(await waiting).toMatchObject({ gone: true });
    expect(await failureOf(session.send("Runtime.evaluate", { expression: "1" }))).toMatchObject({ gone: true });
    // The link itself goes on.
    expect((await link.send("Browser.getVersion")).product).toMatch(/Chrome/);
  });

  it("a detached session fails its waiting and later calls; the page stays and takes a new session", async () => {
    const link = await connect();
    const { targetId, session } = await newPage(link);
    const waiting = failureOf(never(session));
    await session.detach();
    expect(await waiting).toMatchObject({ gone: true });
    expect(await failureOf(session.send("Runtime.evaluate", { expression: "1" }))).toMatchObject({ gone: true });
    const again = await link.attach(targetId);
    const { result } = await again.send("Runtime.evaluate", { expression: "1 + 1", returnByValue: true });
    expect(result.value).toBe(2);
  });

  it("closing the link fails every waiting and later call as gone, and tells who asked", async () => {
    const link = await connect();
    const { session } = await newPage(link);
    const waiting = failureOf(never(session));
    const told = new Promise<void>((resolve) => link.onClose(resolve));
    link.close();
    await told;
    expect(link.closed).toBe(true);
    // Asked after the end: told at once.
    await new Promise<void>((resolve) => link.onClose(resolve));
    expect(await waiting).toMatchObject({ gone: true });
    expect(await failureOf(link.send("Browser.getVersion"))).toMatchObject({ gone: true });
  });

  it("refuses to connect to an address nothing answers at", async () => {
    const gone = `ws://127.0.0.1:${new URL(proc.wsEndpoint).port}/devtools/browser/not-a-browser`;
    await expect(DevtoolsLink.connect(gone, 5_000)).rejects.toThrow();
  });
});
