import { findChromium } from "@renderkit/core/chromium";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { ChromiumProcess } from "../../core/dist/chromium/browser/chromium-process.js";

/** A Chromium that renderkit launched (its flags, its process group) with Playwright connected to it. */
export interface LaunchedChromium {
  proc: ChromiumProcess;
  browser: Browser;
}

/**
 * Launches renderkit's Chromium and connects Playwright before the calling file's tests, and
 * closes both after them. Read the fields inside tests only.
 */
export function useLaunchedChromium(): LaunchedChromium {
  const launched = {} as LaunchedChromium;
  beforeAll(async () => {
    launched.proc = await ChromiumProcess.launch({ executablePath: findChromium() });
    launched.browser = await chromium.connectOverCDP(launched.proc.wsEndpoint);
  }, 60_000);
  afterAll(async () => {
    await launched.browser?.close().catch(() => undefined);
    await launched.proc?.kill();
  });
  return launched;
}
