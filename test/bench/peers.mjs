// Peer libraries for the throughput benchmark, on the system Chromium with renderkit's flags (no
// browser download, no ad-block lists). Each row: `open({ url, c })` → `{ render(worker), root, close() }`.

import { createRequire } from "node:module";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";

const require = createRequire(import.meta.url);
// The same flags as renderkit's engines; `--no-sandbox` as playwright-core adds by default (the floors).
const ARGS = [...CHROMIUM_FLAGS, "--no-sandbox"];
const VIEWPORT = { width: 1280, height: 1024 };
const bytes = (buffer) => {
  if (!buffer?.length) throw new Error("no image bytes");
  return buffer.length;
};

/** Loads a peer's module, or `null` and why (`n/a: <reason>`). */
async function load(name, how) {
  try {
    return { mod: await how() };
  } catch (error) {
    return { reason: `${name} not loadable: ${String(error?.message ?? error).split("\n")[0]}` };
  }
}

/** capture-website's options for a png of the viewport; `blockAds` would fetch filter lists, waits are its own (networkidle2). */
const captureOptions = () => ({
  width: VIEWPORT.width,
  height: VIEWPORT.height,
  scaleFactor: 1, // its default is 2
  type: "png",
  blockAds: false,
  launchOptions: { headless: true, executablePath: findChromium(), args: [...ARGS] },
});

export const PEER_ROWS = [
  {
    // The documented use: every call launches (and closes) its own browser. (Its undocumented `_browser`
    // option shares one, but then its pages share a context: the screenshot deadlock described below.)
    name: "peer capture-website",
    async open() {
      const { mod, reason } = await load("capture-website", () => import("capture-website"));
      if (!mod) return { unavailable: reason };
      const captureWebsite = mod.default;
      return {
        render: async (_w, url) => bytes(await captureWebsite.buffer(url, captureOptions())),
        root: process.pid,
        close: async () => {},
      };
    },
  },
  {
    // microlink browserless: one browser, a context per worker ("isolated browser contexts ... enabling
    // concurrent operations"); each screenshot opens and closes a page in it. Pages sharing one context
    // deadlock now and then here: puppeteer serialises a context's screenshots, and one never returns.
    name: "peer browserless",
    async open({ c }) {
      const { mod, reason } = await load("browserless", async () => require("browserless"));
      if (!mod) return { unavailable: reason };
      const browser = mod({ executablePath: findChromium(), args: [...ARGS], timeout: 60_000 });
      let contexts;
      try {
        contexts = await Promise.all(Array.from({ length: c }, () => browser.createContext({ retry: 0 })));
      } catch (error) {
        await browser.close().catch(() => undefined);
        throw error;
      }
      const options = {
        type: "png",
        waitUntil: "load", // its default "auto" waits for network idle too
        adblock: false,
        viewport: { ...VIEWPORT, deviceScaleFactor: 1 }, // its default device is a 2x "Macbook Pro 13"
      };
      return {
        render: async (w, url) => bytes(await contexts[w].screenshot(url, options)),
        root: process.pid,
        async close() {
          await Promise.all(contexts.map((context) => context.destroyContext().catch(() => undefined)));
          await browser.close();
        },
      };
    },
  },
];
