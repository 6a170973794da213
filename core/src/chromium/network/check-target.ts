import { isRenderError, type PageSettings, type PageTarget, RenderError } from "../../index.js";
import { authority, probeProxy } from "./upstream-connect.js";

/**
 * Checks the upstream proxy (`proxy` option) like any target: its address must pass the policy
 * (a proxy on a private address is refused unless the operator allows it), and it must accept a
 * connection, so an unreachable proxy fails the render with a clear error before any page work.
 */
async function checkProxy(settings: PageSettings): Promise<void> {
  const proxy = settings.proxy;
  if (!proxy) return;
  const where = authority(proxy.host, proxy.port);
  let address: Awaited<ReturnType<PageSettings["policy"]["resolve"]>>;
  try {
    address = await settings.policy.resolve(proxy.host, proxy.port);
  } catch (error) {
    // The policy's own words without its "Refused to load host:port: " (the proxy's address is named here).
    const reason = isRenderError(error) ? error.message.replace(/^Refused to load .+?:\d+: /, "") : String(error);
    const code = isRenderError(error) ? error.code : "InvalidURLError";
    throw new RenderError(code, `Refused to use the proxy ${where}: ${reason}`, { details: { option: "proxy" } });
  }
  try {
    await probeProxy({ proxy, address });
  } catch (error) {
    throw new RenderError("ProxyError", `The proxy ${where} could not be reached (${(error as Error).message})`, {
      details: { option: "proxy" },
    });
  }
}

/**
 * Checks the target's own address before any browser work, for a clear error: `InvalidURLError`
 * for a scheme other than http(s) or a non-public IP literal, `URLDoesNotResolveError` ("does not
 * resolve to a public address") for a host name that does not resolve or resolves to a non-public
 * address, the two alike so that callers cannot map internal names. The egress proxy still checks
 * every connection the page makes.
 */
export async function checkTarget(target: PageTarget, settings: PageSettings): Promise<void> {
  if (target.url !== undefined) {
    const url = new URL(target.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new RenderError("InvalidURLError", `Only http and https addresses can be rendered, not ${url.protocol}`);
    }
    await settings.policy.resolveUrl(url);
  }
  await checkProxy(settings);
}
