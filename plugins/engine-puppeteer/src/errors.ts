import type { AddressChecker, RenderError } from "@renderkit/core";
import { type DriverErrorKinds, translateDriverError } from "@renderkit/core/chromium";
import { loadedPuppeteer } from "./driver.js";

/** True when the browser, context or page went away under the call (crash, kill, close). */
export function isGone(error: unknown): boolean {
  const driver = loadedPuppeteer();
  if (driver !== undefined && error instanceof driver.ConnectionClosedError) return true;
  return (
    error instanceof Error &&
    /Target closed|Session closed|Connection closed|browser has disconnected|Browser (has been )?closed|Target crashed|page crashed|Navigating frame was detached|detached Frame/i.test(
      error.message,
    )
  );
}

/** How puppeteer-core says what went wrong; the rest of the translation is core's. */
const PUPPETEER_ERRORS: DriverErrorKinds = {
  isTimeout: (error) => {
    const driver = loadedPuppeteer();
    return driver !== undefined && error instanceof driver.TimeoutError;
  },
  isGone,
  // The browser's own refusal of a selector (a bad option, not an engine failure).
  badSelector:
    /is not a valid selector|SyntaxError: Failed to execute '(querySelector|querySelectorAll|matches|closest)'|Unknown selector type|Unsupported (pseudo|selector)/i,
  badKey: /Unknown key: /,
};

/**
 * Translates puppeteer-core errors into RenderErrors at the engine boundary; nothing
 * else in renderkit matches on Puppeteer's message text.
 */
export function translateError(error: unknown, what: string, policy?: AddressChecker): RenderError {
  return translateDriverError(error, what, PUPPETEER_ERRORS, policy);
}
