import type { AddressChecker, RenderError } from "@renderkit/core";
import { DevtoolsError, type DriverErrorKinds, translateDriverError } from "@renderkit/core/chromium";
import { loadedPlaywright } from "./driver.js";

/**
 * True when the message says the browser, context or page went away (crash, kill), or our own
 * DevTools link's session ended under the call.
 */
export function isGone(error: unknown): boolean {
  if (error instanceof DevtoolsError && error.gone) return true;
  return (
    error instanceof Error &&
    /Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed|Connection closed/i.test(
      error.message,
    )
  );
}

/** How playwright-core says what went wrong; the rest of the translation is core's. */
const PLAYWRIGHT_ERRORS: DriverErrorKinds = {
  isTimeout: (error) => {
    const driver = loadedPlaywright();
    return driver !== undefined && error instanceof driver.errors.TimeoutError;
  },
  isGone,
  badSelector:
    /is not a valid selector|SyntaxError: Failed to execute 'querySelector|while parsing (css )?selector|Unexpected token .* while parsing/,
  badKey: /Unknown key: /,
};

/**
 * Translates playwright-core errors into RenderErrors at the engine boundary; nothing
 * else in renderkit matches on Playwright's message text.
 */
export function translateError(error: unknown, what: string, policy?: AddressChecker): RenderError {
  return translateDriverError(error, what, PLAYWRIGHT_ERRORS, policy);
}
