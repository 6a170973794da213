import { lazyModule } from "@renderkit/core/internal";
import type * as Puppeteer from "puppeteer-core";

/**
 * puppeteer-core is loaded when this engine first connects to a browser, not when the plugin is
 * imported: a server whose renders all use the other engine never pays for it (~25 MB of memory
 * and ~100 ms at start). No error of puppeteer-core can exist before that.
 */
const driver = lazyModule<typeof Puppeteer>("puppeteer-core", () => import("puppeteer-core"));

/** Loads puppeteer-core (once). */
export const loadPuppeteer = driver.load;

/** puppeteer-core if a connection loaded it, else undefined. */
export const loadedPuppeteer = driver.loaded;

/** The driver's own timeout error (core turns it into RenderTimeoutError), for a step the driver gives no timeout. */
export function driverTimeout(message: string): Error {
  return new (driver.get().TimeoutError)(message);
}
