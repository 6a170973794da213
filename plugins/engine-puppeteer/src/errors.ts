import { type AddressPolicy, RenderError } from "@renderkit/core";
import { navigationFailure } from "@renderkit/core/chromium";
import { ConnectionClosedError, TimeoutError } from "puppeteer-core";

/** True when the browser, context or page went away under the call (crash, kill, close). */
export function isGone(error: unknown): boolean {
  if (error instanceof ConnectionClosedError) return true;
  return (
    error instanceof Error &&
    /Target closed|Session closed|Connection closed|browser has disconnected|Browser (has been )?closed|Target crashed|page crashed|Navigating frame was detached|detached Frame/i.test(
      error.message,
    )
  );
}

/** True for the browser's own refusal of a selector (a bad option, not an engine failure). */
function isBadSelector(message: string): boolean {
  return /is not a valid selector|SyntaxError: Failed to execute '(querySelector|querySelectorAll|matches|closest)'|Unknown selector type|Unsupported (pseudo|selector)/i.test(
    message,
  );
}

/**
 * Translates puppeteer-core errors into RenderErrors at the engine boundary; nothing
 * else in renderkit matches on Puppeteer's message text.
 */
export function translateError(error: unknown, what: string, policy?: AddressPolicy): RenderError {
  if (error instanceof RenderError) return error;
  const text = error instanceof Error ? error.message : String(error);
  // Only a refused or failed tunnel, or the proxy's own answer, means the main document failed
  // at the proxy; a refused subresource must not turn a later timeout into an address error.
  const failure = navigationFailure(text, policy);
  if (failure) return new RenderError(failure.code, failure.message, { cause: error });
  const message = text.split("\n")[0] ?? "";
  if (error instanceof TimeoutError) {
    return new RenderError("RenderTimeoutError", `${what} timed out: ${message}`, { cause: error });
  }
  if (isGone(error)) {
    return new RenderError("EngineResponseNotOkError", `The browser went away during ${what}`, { cause: error, retryable: true });
  }
  if (/net::ERR_NAME_NOT_RESOLVED/.test(message)) {
    return new RenderError("URLDoesNotResolveError", `The address does not resolve (${what})`, { cause: error });
  }
  if (/net::ERR_/.test(message)) {
    const net = message.match(/net::ERR_[A-Z_]+/)?.[0];
    return new RenderError("EngineResponseNotOkError", `The page could not be loaded: ${net}`, { cause: error });
  }
  if (isBadSelector(message)) {
    return new RenderError("InvalidOptions", `Invalid selector: ${message}`, { cause: error });
  }
  if (/Unknown key: /.test(message)) {
    return new RenderError("InvalidOptions", `Invalid key: ${message}`, { cause: error });
  }
  return new RenderError("EngineResponseNotOkError", `${what} failed: ${message}`, { cause: error });
}
