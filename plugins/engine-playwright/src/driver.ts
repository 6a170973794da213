import { lazyModule } from "@renderkit/core/internal";
import type * as Playwright from "playwright-core";

/**
 * playwright-core is loaded when this engine first connects to a browser, not when the plugin is
 * imported: a server whose renders all use the other engine never pays for it (~80 MB of memory
 * and ~250 ms at start: it runs Playwright's own driver in the process). No error of
 * playwright-core can exist before that.
 */
const driver = lazyModule<typeof Playwright>("playwright-core", () => import("playwright-core"));

/** Loads playwright-core (once). */
export const loadPlaywright = driver.load;

/** playwright-core if a connection loaded it, else undefined. */
export const loadedPlaywright = driver.loaded;

/** The driver's own timeout error (core turns it into RenderTimeoutError), for a step the driver gives no timeout. */
export function driverTimeout(message: string): Error {
  return new (driver.get().errors.TimeoutError)(message);
}
