import type { PageSettings } from "../contracts/engine.js";

/** The origin of an address; undefined when it has none (data:, blob:, about:...). */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The headers an engine continues an intercepted request with for `PageSettings.authorization`:
 * the request's own plus the Authorization header when it goes to the target's origin; without
 * that header when it goes elsewhere but carries our value (a redirect hop that kept the first
 * request's headers). Undefined: continue the request unchanged.
 */
export function authorizedHeaders(
  url: string,
  headers: Record<string, string>,
  auth: PageSettings["authorization"],
): Record<string, string> | undefined {
  if (!auth) return undefined;
  if (originOf(url) === auth.origin) return { ...headers, authorization: auth.value };
  const own = Object.keys(headers).find((name) => name.toLowerCase() === "authorization");
  if (own === undefined || headers[own] !== auth.value) return undefined;
  const rest = { ...headers };
  delete rest[own];
  return rest;
}
