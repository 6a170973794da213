import type * as Playwright from "playwright-core";

type PlaywrightModule = typeof Playwright;

/**
 * playwright-core is loaded when this engine first connects to a browser, not when the plugin is
 * imported: a server whose renders all use the other engine never pays for it (~80 MB of memory
 * and ~250 ms at start, as it runs Playwright's own driver in the process). No error of
 * playwright-core can exist before that.
 */
let loaded: PlaywrightModule | undefined;

/** Loads playwright-core (once). */
export async function loadPlaywright(): Promise<PlaywrightModule> {
  loaded ??= await import("playwright-core");
  return loaded;
}

/** playwright-core if a connection loaded it, else undefined. */
export function loadedPlaywright(): PlaywrightModule | undefined {
  return loaded;
}

/** playwright-core, for code that only runs on a connected browser (a session). */
function playwrightModule(): PlaywrightModule {
  if (!loaded) throw new Error("playwright-core used before the engine connected to a browser");
  return loaded;
}

/** The driver's own timeout error (core turns it into RenderTimeoutError), for a step the driver gives no timeout. */
export function driverTimeout(message: string): Error {
  return new (playwrightModule().errors.TimeoutError)(message);
}
