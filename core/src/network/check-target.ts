import type { PageSettings, PageTarget } from "../contracts/engine.js";
import { RenderError } from "../errors.js";

/**
 * Checks the target's own address before any browser work, for a clear InvalidURLError or
 * URLDoesNotResolveError; the egress proxy still checks every connection the page makes.
 */
export async function checkTarget(target: PageTarget, settings: PageSettings): Promise<void> {
  if (target.url === undefined) return;
  const url = new URL(target.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RenderError("InvalidURLError", `Only http and https addresses can be rendered, not ${url.protocol}`);
  }
  await settings.policy.resolveUrl(url);
}
