import { randomBytes } from "node:crypto";

/**
 * Randomness in each side file's key: 128 bits, more than the render id's UUID v4 (122). The
 * render's own key stays `<renderId>.<ext>`; a side file's key cannot be worked out from it, nor
 * from another side file's, so holding one address (a published `renderUrl`) gives no other.
 */
const TOKEN_BYTES = 16;
/** Length of the token as base64url text (16 bytes, no padding). */
const TOKEN_CHARS = 22;
const TOKEN = /^[A-Za-z0-9_-]{22}$/;

/**
 * Side files that hold credentials: the page's cookies (`save_cookies`, httpOnly ones and the
 * caller's own `cookies` included) and its response headers (`save_headers`, whose `set-cookie`
 * carries the same cookies). A server serves them only to the render's project.
 */
export const PRIVATE_SIDE_SUFFIXES = ["-cookies.json", "-headers.json"] as const;

/** A fresh key for one side file of `renderId`: `<renderId>-<token><suffix>` (`-cookies.json`, `.html`...). */
export function sideFileKey(renderId: string, suffix: string): string {
  return `${renderId}-${randomBytes(TOKEN_BYTES).toString("base64url")}${suffix}`;
}

/** Whether `suffix` names a side file that holds credentials (see `PRIVATE_SIDE_SUFFIXES`). */
export function isPrivateSuffix(suffix: string): boolean {
  return (PRIVATE_SIDE_SUFFIXES as readonly string[]).includes(suffix);
}

/**
 * The render a credential-holding side file belongs to, read from its key
 * (`<renderId>-<token>-cookies.json`); undefined when `key` is not such a file's.
 */
export function privateSideFileRender(key: string): string | undefined {
  const suffix = PRIVATE_SIDE_SUFFIXES.find((end) => key.endsWith(end));
  if (!suffix) return undefined;
  const head = key.slice(0, -suffix.length);
  const cut = head.length - TOKEN_CHARS - 1;
  if (cut < 1 || head[cut] !== "-" || !TOKEN.test(head.slice(cut + 1))) return undefined;
  return head.slice(0, cut);
}
