import type * as Puppeteer from "puppeteer-core";

type PuppeteerModule = typeof Puppeteer;

/**
 * puppeteer-core is loaded when this engine first connects to a browser, not when the plugin is
 * imported: a server whose renders all use the other engine never pays for it (~25 MB of memory
 * and ~100 ms at start). No error of puppeteer-core can exist before that.
 */
let loaded: PuppeteerModule | undefined;

/** Loads puppeteer-core (once). */
export async function loadPuppeteer(): Promise<PuppeteerModule> {
  loaded ??= await import("puppeteer-core");
  return loaded;
}

/** puppeteer-core if a connection loaded it, else undefined. */
export function loadedPuppeteer(): PuppeteerModule | undefined {
  return loaded;
}

/** puppeteer-core, for code that only runs on a connected browser (a session). */
function puppeteerModule(): PuppeteerModule {
  if (!loaded) throw new Error("puppeteer-core used before the engine connected to a browser");
  return loaded;
}

/** The driver's own timeout error (core turns it into RenderTimeoutError), for a step the driver gives no timeout. */
export function driverTimeout(message: string): Error {
  return new (puppeteerModule().TimeoutError)(message);
}
