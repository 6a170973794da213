import type { BrowserConnection } from "@renderkit/core/chromium";
import type { Browser } from "puppeteer-core";
import { loadPuppeteer } from "./driver.js";

/** Puppeteer attached to a Chromium the pool launched; Puppeteer only speaks DevTools to it. */
export async function connectPuppeteer(wsEndpoint: string): Promise<BrowserConnection<Browser>> {
  // `defaultViewport: null`: every page sets its own viewport (and scale factor) before loading.
  // A DevTools call to a wedged renderer fails after 2 min instead of Puppeteer's default 3.
  const { connect } = await loadPuppeteer();
  const browser = await connect({ browserWSEndpoint: wsEndpoint, defaultViewport: null, protocolTimeout: 120_000 });
  return {
    browser,
    connected: () => browser.connected,
    onDisconnected: (listener) => void browser.on("disconnected", listener),
    // No graceful `Browser.close`: the pool kills the process group and deletes the profile anyway,
    // and the kill is immediate where a graceful close costs ~150 ms.
    close: () => browser.disconnect(),
  };
}
