import type { PageCookie } from "../contracts/page-session.js";

/** Most cookies stored by `save_cookies` (Chromium keeps about 180 a domain; a context can hold thousands). */
export const MAX_COOKIES = 1_000;

/** A cookie as Playwright's and Puppeteer's `BrowserContext.cookies()` give it. */
export interface DriverCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
}

/** A driver's cookie as a `PageCookie` (the same fields from both engines). */
export function pageCookie(c: DriverCookie): PageCookie {
  const sameSite = c.sameSite === "Strict" || c.sameSite === "Lax" || c.sameSite === "None" ? c.sameSite : undefined;
  return {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.expires,
    httpOnly: c.httpOnly === true,
    secure: c.secure === true,
    ...(sameSite ? { sameSite } : {}),
  };
}

/**
 * What `save_cookies` stores for each cookie: the browsers' own shape, `sameSite` as Chromium
 * applies it (`Lax` for a cookie that did not say; Playwright reports it so, Puppeteer leaves it out).
 */
export type SavedCookie = Required<PageCookie>;

/**
 * The `save_cookies` file: the first `MAX_COOKIES` cookies, by domain, path and name. `expires` is
 * in seconds since the epoch, -1 for a session cookie, as Playwright, Puppeteer and DevTools take it.
 */
export function savedCookies(cookies: readonly PageCookie[]): SavedCookie[] {
  return [...cookies]
    .sort((a, b) => a.domain.localeCompare(b.domain) || a.path.localeCompare(b.path) || a.name.localeCompare(b.name))
    .slice(0, MAX_COOKIES)
    .map((c) => ({ ...pageCookie(c), sameSite: c.sameSite ?? "Lax" }));
}
