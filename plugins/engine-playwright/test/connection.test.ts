import { findChromium } from "@renderkit/core/chromium";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChromiumProcess } from "../../../core/dist/chromium/browser/chromium-process.js";
import { connectPlaywright, devtoolsLinkOf } from "../dist/connection.js";

/**
 * The engine's connection to a browser it launched: Playwright through the uncompressed relay, and
 * renderkit's own DevTools link beside it (a page's reset and capture). Against a real Chromium.
 */
describe("connectPlaywright (real Chromium)", () => {
  // A browser each: closing a connection closes its browser.
  let proc: ChromiumProcess;
  beforeEach(async () => {
    proc = await ChromiumProcess.launch({ executablePath: findChromium() });
  }, 60_000);
  afterEach(() => proc?.kill());

  it("keeps a DevTools link beside Playwright, on the same browser, and closes it with the connection", async () => {
    const connection = await connectPlaywright(proc.wsEndpoint);
    const link = devtoolsLinkOf(connection.browser);
    if (!link) throw new Error("connectPlaywright kept no DevTools link");
    expect(link.closed).toBe(false);
    const context = await connection.browser.newContext();
    const page = await context.newPage();
    await page.setContent("<title>seen by both</title>");
    // The link sees the page Playwright made.
    const { targetInfos } = await link.send("Target.getTargets");
    expect(targetInfos.some((t: { type: string; title: string }) => t.type === "page" && t.title === "seen by both")).toBe(true);
    await connection.close();
    expect(link.closed).toBe(true);
  });

  it("gives the browser up when the link ends alone, so the pool launches another", async () => {
    const connection = await connectPlaywright(proc.wsEndpoint);
    const disconnected = new Promise<void>((resolve) => connection.onDisconnected(resolve));
    devtoolsLinkOf(connection.browser)?.close();
    await disconnected;
    expect(connection.connected()).toBe(false);
    // Given up by the connection, not killed: the pool kills and replaces it.
    expect(proc.alive).toBe(true);
  });
});
