import { type AddressChecker, RenderError } from "../../index.js";
import { navigationFailure } from "../network/navigation-failure.js";

/**
 * What only the driver (playwright-core, puppeteer-core) can tell about its own errors: its error
 * classes and message texts. Chromium's own texts (`net::ERR_…`, the proxy's refusals) are read
 * by `translateDriverError` for every driver.
 */
export interface DriverErrorKinds {
  /** The driver's own timeout. */
  isTimeout(error: unknown): boolean;
  /** The browser, context or page went away under the call (crash, kill, close). */
  isGone(error: unknown): boolean;
  /** The first line of a message refusing a selector: a bad option, not an engine failure. */
  badSelector: RegExp;
  /** The first line of a message refusing a key name (`press`). */
  badKey: RegExp;
}

/**
 * Translates a driver's error into a RenderError at the engine boundary; nothing else in renderkit
 * matches on a driver's message text. `what` names what was being done. `policy` is given while
 * the main document loads: then only a refused or failed tunnel, or the proxy's own answer, means
 * the document failed at the proxy (a refused subresource must not turn a later timeout into an
 * address error).
 */
export function translateDriverError(
  error: unknown,
  what: string,
  kinds: DriverErrorKinds,
  policy?: AddressChecker,
): RenderError {
  if (error instanceof RenderError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const failure = navigationFailure(text, policy);
  if (failure) return new RenderError(failure.code, failure.message, { cause: error });
  const message = text.split("\n")[0] ?? "";
  if (kinds.isTimeout(error)) {
    return new RenderError("RenderTimeoutError", `${what} timed out: ${message}`, { cause: error });
  }
  if (kinds.isGone(error)) {
    return new RenderError("EngineResponseNotOkError", `The browser went away during ${what}`, { cause: error, retryable: true });
  }
  if (/net::ERR_NAME_NOT_RESOLVED/.test(message)) {
    return new RenderError("URLDoesNotResolveError", `The address does not resolve (${what})`, { cause: error });
  }
  if (/net::ERR_/.test(message)) {
    const net = message.match(/net::ERR_[A-Z_]+/)?.[0];
    return new RenderError("EngineResponseNotOkError", `The page could not be loaded: ${net}`, { cause: error });
  }
  if (kinds.badSelector.test(message)) {
    return new RenderError("InvalidOptions", `Invalid selector: ${message}`, { cause: error });
  }
  if (kinds.badKey.test(message)) {
    return new RenderError("InvalidOptions", `Invalid key: ${message}`, { cause: error });
  }
  return new RenderError("EngineResponseNotOkError", `${what} failed: ${message}`, { cause: error });
}
