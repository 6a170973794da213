import type { AddressChecker } from "../contracts/address.js";
import { RenderError } from "../errors.js";
import { DENIED_HEADER, UNREACHABLE_HEADER } from "./egress-proxy.js";

/** Error text engines throw when the main document came back with the proxy's `DENIED_HEADER`. */
export const REFUSED_MESSAGE = "refused by the address policy";
/** Error text engines throw when the main document came back with the proxy's `UNREACHABLE_HEADER`. */
export const UNREACHABLE_MESSAGE = "the destination could not be reached";

/**
 * The error for a main document that could not be loaded for a reason of the address rules or of
 * the network: Chromium refused a redirect to a non-http(s) scheme, or the egress proxy refused or
 * could not connect (read from the browser's error text, `ERR_TUNNEL_CONNECTION_FAILED` for https
 * and the messages above for http, and the policy's record). Undefined when the text is about
 * something else; the engine translates it then.
 */
export function navigationFailure(text: string, policy: AddressChecker | undefined): RenderError | undefined {
  // Chromium's own refusal of a redirect to file:, chrome: and the like: the address rules say the same.
  if (/ERR_UNSAFE_REDIRECT/.test(text)) {
    return new RenderError("InvalidURLError", "The page redirected to an address that is not http or https");
  }
  if (!policy) return undefined;
  const tunnel = /ERR_TUNNEL_CONNECTION_FAILED/.test(text);
  const denial = tunnel || text.includes(REFUSED_MESSAGE) ? policy.denials.at(-1) : undefined;
  if (denial) {
    const code = denial.reason === "does not resolve" ? "URLDoesNotResolveError" : "InvalidURLError";
    return new RenderError(code, `Refused to load ${denial.host}:${denial.port}: ${denial.reason}`);
  }
  const failed = tunnel || text.includes(UNREACHABLE_MESSAGE) ? policy.unreachable.at(-1) : undefined;
  if (failed) {
    return new RenderError(
      "EngineResponseNotOkError",
      `The page could not be loaded: connecting to ${failed.host}:${failed.port} failed (${failed.reason})`,
    );
  }
  return undefined;
}

/**
 * Throws when the main document's answer is the egress proxy's own (a refusal or a failed
 * connection, told by its marker headers) rather than the site's. Engines call it after navigating.
 */
export function checkProxyAnswer(headers: Record<string, string> | undefined, policy: AddressChecker | undefined): void {
  if (!headers) return;
  const text =
    headers[DENIED_HEADER] === "1" ? REFUSED_MESSAGE : headers[UNREACHABLE_HEADER] === "1" ? UNREACHABLE_MESSAGE : undefined;
  if (!text) return;
  throw navigationFailure(text, policy) ?? new RenderError("EngineResponseNotOkError", `The page could not be loaded: ${text}`);
}
