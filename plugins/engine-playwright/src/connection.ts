import type { BrowserConnection } from "@renderkit/core/chromium";
import { type Browser, chromium } from "playwright-core";

/** Playwright attached over DevTools to a Chromium the pool launched. */
export async function connectPlaywright(wsEndpoint: string): Promise<BrowserConnection<Browser>> {
  const browser = await chromium.connectOverCDP(wsEndpoint, { timeout: 30_000 });
  return {
    browser,
    connected: () => browser.isConnected(),
    onDisconnected: (listener) => void browser.on("disconnected", listener),
    close: () => browser.close(),
  };
}
