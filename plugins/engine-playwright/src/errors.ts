import { type AddressPolicy, RenderError } from "@renderkit/core";
import { navigationFailure } from "@renderkit/core/chromium";
import { errors } from "playwright-core";

/** True when the message says the browser, context or page went away (crash, kill). */
export function isGone(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed|Connection closed/i.test(
      error.message,
    )
  );
}

/**
 * Translates playwright-core errors into RenderErrors at the engine boundary; nothing
 * else in renderkit matches on Playwright's message text.
 */
export function translateError(error: unknown, what: string, policy?: AddressPolicy): RenderError {
  if (error instanceof RenderError) return error;
  const text = error instanceof Error ? error.message : String(error);
  // Only a refused or failed tunnel, or the proxy's own answer, means the main document failed
  // at the proxy; a refused subresource must not turn a later timeout into an address error.
  const failure = navigationFailure(text, policy);
  if (failure) return new RenderError(failure.code, failure.message, { cause: error });
  if (error instanceof errors.TimeoutError) {
    return new RenderError("RenderTimeoutError", `${what} timed out: ${text.split("\n")[0]}`, { cause: error });
  }
  const message = text.split("\n")[0] ?? "";
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
  if (
    /is not a valid selector|SyntaxError: Failed to execute 'querySelector|while parsing (css )?selector|Unexpected token .* while parsing/.test(
      message,
    )
  ) {
    return new RenderError("InvalidOptions", `Invalid selector: ${message}`, { cause: error });
  }
  if (/Unknown key: /.test(message)) {
    return new RenderError("InvalidOptions", `Invalid key: ${message}`, { cause: error });
  }
  return new RenderError("EngineResponseNotOkError", `${what} failed: ${message}`, { cause: error });
}
