import { type CookieSpec, type PageTarget, RenderError } from "../../index.js";

/**
 * A cookie of the `cookies` option and where it applies: its own Domain, or, without one, the
 * target's address, so it becomes a host-only cookie of the page's host (what a browser makes of
 * a `Set-Cookie` without `Domain`). `path` is the cookie's own, else `/`.
 */
export type ScopedCookie = Omit<CookieSpec, "domain" | "path"> & { path: string } & (
    | { domain: string; url?: undefined }
    | { url: string; domain?: undefined }
  );

/**
 * Scopes the `cookies` option for a render of `target`. Rendered html has no address to make a
 * cookie host-only for, so there every cookie needs a Domain (InvalidOptions otherwise). Both
 * engines apply the result through their driver; the option parser refuses the same case early.
 */
export function scopeCookies(cookies: readonly CookieSpec[], target: PageTarget): ScopedCookie[] {
  return cookies.map((c) => {
    const base = {
      name: c.name,
      value: c.value,
      path: c.path ?? "/",
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: c.sameSite,
    };
    if (c.domain) return { ...base, domain: c.domain };
    if (target.url === undefined) {
      throw new RenderError("InvalidOptions", `Option cookies: cookie ${c.name} needs a Domain when rendering html`);
    }
    return { ...base, url: target.url };
  });
}
