import { type BrowserConnection, DevtoolsLink } from "@renderkit/core/chromium";
import type { Browser } from "playwright-core";
import { loadPlaywright } from "./driver.js";
import { uncompressedRelay } from "./uncompressed-relay.js";

/** Each connected browser's own DevTools link (`devtoolsLinkOf`). */
const links = new WeakMap<Browser, DevtoolsLink>();

/** The DevTools link of our own beside Playwright's connection to `browser` (see `DevtoolsLink`). */
export function devtoolsLinkOf(browser: Browser): DevtoolsLink | undefined {
  return links.get(browser);
}

/**
 * Playwright attached over DevTools to a Chromium the pool launched, through a loopback relay that
 * keeps the connection uncompressed (`uncompressedRelay`), and a DevTools link of our own beside
 * it for the calls renderkit makes itself on a page (its reset, its capture: `devtoolsLinkOf`).
 */
export async function connectPlaywright(wsEndpoint: string): Promise<BrowserConnection<Browser>> {
  const { chromium } = await loadPlaywright();
  const relay = await uncompressedRelay(wsEndpoint);
  let browser: Browser;
  let link: DevtoolsLink | undefined;
  try {
    link = await DevtoolsLink.connect(wsEndpoint);
    browser = await chromium.connectOverCDP(relay.endpoint, { timeout: 30_000 });
  } catch (error) {
    link?.close();
    relay.close();
    throw error;
  }
  links.set(browser, link);
  const end = () => {
    link.close();
    relay.close();
  };
  browser.on("disconnected", end);
  // Should the link end alone, every page's own calls would fail: the browser is given up, so the
  // pool launches a new one (as after a crash) rather than keep a browser renders cannot use.
  link.onClose(() => {
    if (browser.isConnected()) void browser.close().catch(() => undefined);
  });
  return {
    browser,
    connected: () => browser.isConnected(),
    onDisconnected: (listener) => void browser.on("disconnected", listener),
    close: async () => {
      try {
        await browser.close();
      } finally {
        end();
      }
    },
  };
}
