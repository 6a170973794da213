import type { BrowserConnection } from "@renderkit/core/chromium";
import type { Browser } from "playwright-core";
import { loadPlaywright } from "./driver.js";
import { uncompressedRelay } from "./uncompressed-relay.js";

/**
 * Playwright attached over DevTools to a Chromium the pool launched, through a loopback relay that
 * keeps the connection uncompressed (`uncompressedRelay`).
 */
export async function connectPlaywright(wsEndpoint: string): Promise<BrowserConnection<Browser>> {
  const { chromium } = await loadPlaywright();
  const relay = await uncompressedRelay(wsEndpoint);
  let browser: Browser;
  try {
    browser = await chromium.connectOverCDP(relay.endpoint, { timeout: 30_000 });
  } catch (error) {
    relay.close();
    throw error;
  }
  browser.on("disconnected", () => relay.close());
  return {
    browser,
    connected: () => browser.isConnected(),
    onDisconnected: (listener) => void browser.on("disconnected", listener),
    close: async () => {
      try {
        await browser.close();
      } finally {
        relay.close();
      }
    },
  };
}
