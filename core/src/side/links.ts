import type { PageSession } from "../contracts/page-session.js";

/** Most links listed by `save_links`; a page may carry 100,000. */
export const MAX_LINKS = 5_000;
/** Longest link text and address kept. */
export const MAX_LINK_TEXT = 500;
export const MAX_LINK_URL = 2_048;

/** One link of the page. */
export interface PageLink {
  /** Absolute address, resolved against the document's base. */
  href: string;
  /** Visible text (whitespace collapsed), else the `aria-label`, `title` or an image's `alt`; "" when none. */
  text: string;
  /** The `rel` attribute, or null. */
  rel: string | null;
}

/**
 * In the page: `a[href]` and `area[href]` of the main document in document order, deduplicated by
 * address (the first keeps its text), without `javascript:` ones, at most `max`. The walk stops at
 * `max`, so a huge page costs no more than that.
 */
const LINKS = `({ max, maxText, maxUrl }) => {
  const seen = new Set();
  const out = [];
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  for (const el of document.querySelectorAll("a[href], area[href]")) {
    if (out.length >= max) break;
    const href = el.href;
    if (typeof href !== "string" || href === "" || /^javascript:/i.test(href) || seen.has(href)) continue;
    seen.add(href);
    const img = el.querySelector ? el.querySelector("img[alt]") : null;
    const raw = (el.innerText || el.textContent || "").replace(/\\s+/g, " ").trim() ||
      el.getAttribute("aria-label") || el.getAttribute("title") || el.getAttribute("alt") || (img ? img.getAttribute("alt") : "") || "";
    out.push({ href: cut(href, maxUrl), text: cut(raw.trim(), maxText), rel: el.hasAttribute("rel") ? cut(el.getAttribute("rel"), maxText) : null });
  }
  return out;
}`;

/** The page's links as `save_links` stores them. */
export function extractLinks(session: PageSession): Promise<PageLink[]> {
  return session.evaluate<PageLink[]>(LINKS, { max: MAX_LINKS, maxText: MAX_LINK_TEXT, maxUrl: MAX_LINK_URL });
}
