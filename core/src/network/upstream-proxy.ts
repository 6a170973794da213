import { isIP } from "node:net";
import type { UpstreamProxy } from "../contracts/address.js";
import { RenderError } from "../errors.js";

/** An HTTP forward proxy the render's traffic goes through (the `proxy` option). */
export type { UpstreamProxy } from "../contracts/address.js";

/** Longest accepted `proxy` value. */
export const MAX_PROXY_LENGTH = 2048;

const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

function bad(why: string): RenderError {
  return new RenderError("InvalidOptions", `Option proxy ${why}`, { details: { option: "proxy" } });
}

/** Percent-decodes a credential; a value that is not valid percent-encoding is taken literally. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Parses `[http://][user:pass@]host:port` (IPv6 as `[::1]:3128`). The port is required, except
 * after `http://` (then 80). Credentials may be percent-encoded (`p%40ss` for `p@ss`); the last
 * `@` separates them from the host. Other schemes (https, socks) are refused: only plain HTTP
 * proxies are supported. Throws `InvalidOptions` naming `proxy`.
 */
export function parseProxy(value: string): UpstreamProxy {
  let text = value.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0020\u007f]/.test(text)) throw bad("must not contain spaces or control characters");
  const scheme = text.match(/^([a-z][a-z0-9+.-]*):\/\//i);
  if (scheme?.[1] && scheme[1].toLowerCase() !== "http") {
    throw bad(`uses ${scheme[1].toLowerCase()}://: only http:// proxies are supported ([user:pass@]host:port)`);
  }
  if (scheme) text = text.slice(scheme[0].length).replace(/\/$/, "");
  if (text.includes("/") || text.includes("?") || text.includes("#")) throw bad("must be [user:pass@]host:port, without a path");
  const at = text.lastIndexOf("@");
  const proxy: Partial<UpstreamProxy> = {};
  if (at >= 0) {
    const credentials = text.slice(0, at);
    text = text.slice(at + 1);
    const colon = credentials.indexOf(":");
    const user = decode(colon < 0 ? credentials : credentials.slice(0, colon));
    const pass = colon < 0 ? "" : decode(credentials.slice(colon + 1));
    if (user === "") throw bad("has an empty user name before @");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(user + pass) || user.includes(":")) throw bad("has credentials that cannot be sent");
    proxy.username = user;
    proxy.password = pass;
  }
  const match = text.match(/^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i);
  const host = (match?.[1] ?? match?.[2] ?? "").toLowerCase();
  if (!match || !host) throw bad("must be [user:pass@]host:port");
  if (match[1] !== undefined ? isIP(host) !== 6 : !(isIP(host) === 4 || HOST_NAME.test(host))) {
    throw bad(`has "${host.slice(0, 60)}", which is not a host name or IP address`);
  }
  if (match[3] === undefined && !scheme) throw bad("needs a port: [user:pass@]host:port");
  const port = match[3] === undefined ? 80 : Number(match[3]);
  if (port < 1 || port > 65_535) throw bad("has a port outside 1-65535");
  return { ...proxy, host: host.replace(/\.$/, ""), port };
}
