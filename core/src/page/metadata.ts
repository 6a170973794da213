import type { PageSession } from "../contracts/page-session.js";

/** Page metadata returned by `metadata: true` and stored by `save_metadata`. */
export interface PageMetadata {
  urlRequested: string | null;
  urlResolved: string;
  statusCode: number | null;
  title: string | null;
  description: string | null;
  lang: string | null;
  charset: string | null;
  canonical: string | null;
  favicon: string | null;
  author: string | null;
  publisher: string | null;
  date: string | null;
  image: string | null;
  /** `og:*` properties as `ogTitle`, `ogImageWidth`... */
  [key: `og${string}`]: string;
  /** `twitter:*` names as `twitterCard`, `twitterImage`... */
  [key: `twitter${string}`]: string;
}

/** Longest value kept (a page may carry megabytes in one meta tag). */
const MAX_VALUE_CHARS = 2048;
/** Most `og*` / `twitter*` fields kept. */
const MAX_EXTRA_FIELDS = 100;
/** The fields the extractor always returns (`title` ... `image`), besides the og/twitter ones. */
const FIXED_FIELDS = 10;

/**
 * Keeps what the page script returned within bounds whatever the page did to the built-ins it
 * uses: string or null values only, each cut to `MAX_VALUE_CHARS`, at most the fixed fields and
 * `MAX_EXTRA_FIELDS` others.
 */
function bounded(found: unknown): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (!found || typeof found !== "object") return out;
  let count = 0;
  for (const [key, value] of Object.entries(found)) {
    if (count >= FIXED_FIELDS + MAX_EXTRA_FIELDS || key.length > 100 || key === "__proto__") continue;
    if (value !== null && typeof value !== "string") continue;
    out[key] = typeof value === "string" ? value.slice(0, MAX_VALUE_CHARS) : null;
    count++;
  }
  return out;
}

/**
 * Runs in the page: reads the document's own metadata (meta tags, links, JSON-LD) and resolves
 * addresses against the document. Our own extractor: no library fetches or parses the page again.
 */
const EXTRACT = `() => {
  const cap = (v) => (v.length > ${MAX_VALUE_CHARS} ? v.slice(0, ${MAX_VALUE_CHARS}) : v);
  const abs = (v) => { if (!v) return null; try { return cap(new URL(v, document.baseURI).href); } catch { return null; } };
  const text = (v) => (typeof v === "string" && v.trim() !== "" ? cap(v.trim()) : null);
  const meta = (attr, key) => {
    for (const el of document.querySelectorAll("meta[" + attr + "]")) {
      if ((el.getAttribute(attr) || "").toLowerCase() === key) return text(el.getAttribute("content"));
    }
    return null;
  };
  const camel = (key) => key.split(/[:_-]/).filter(Boolean).map((p, i) => (i === 0 ? p : p[0].toUpperCase() + p.slice(1))).join("");
  const ld = [];
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
    try { const v = JSON.parse(s.textContent || ""); (Array.isArray(v) ? v : v["@graph"] || [v]).forEach((x) => ld.push(x)); } catch {}
  }
  const fromLd = (k) => { for (const x of ld) { const v = x && x[k]; if (typeof v === "string") return v; if (v && typeof v.name === "string") return v.name; if (Array.isArray(v) && v[0]) return typeof v[0] === "string" ? v[0] : v[0].name || null; } return null; };
  const link = (rel) => { for (const el of document.querySelectorAll("link[rel]")) { if (el.rel.toLowerCase().split(/\\s+/).includes(rel)) return abs(el.getAttribute("href")); } return null; };
  const out = {
    title: text(document.title) || meta("property", "og:title") || meta("name", "twitter:title"),
    description: meta("name", "description") || meta("property", "og:description") || meta("name", "twitter:description"),
    lang: text(document.documentElement.getAttribute("lang")) || meta("http-equiv", "content-language"),
    charset: document.characterSet || null,
    canonical: link("canonical"),
    favicon: link("icon") || link("shortcut") || link("apple-touch-icon") || (location.protocol.startsWith("http") ? abs("/favicon.ico") : null),
    author: meta("name", "author") || meta("property", "article:author") || fromLd("author") || text(document.querySelector('[rel="author"]')?.textContent),
    publisher: meta("property", "og:site_name") || meta("name", "publisher") || fromLd("publisher") || meta("name", "application-name"),
    date: meta("property", "article:published_time") || meta("name", "date") || meta("itemprop", "datepublished") || fromLd("datePublished") || text(document.querySelector("time[datetime]")?.getAttribute("datetime")),
    image: abs(meta("property", "og:image") || meta("name", "twitter:image") || meta("property", "twitter:image")),
  };
  let extra = 0;
  for (const el of document.querySelectorAll("meta[property], meta[name]")) {
    if (extra >= ${MAX_EXTRA_FIELDS}) break;
    const key = (el.getAttribute("property") || el.getAttribute("name") || "").toLowerCase().slice(0, 100);
    const value = text(el.getAttribute("content"));
    if (!value || !/^(og|twitter):/.test(key)) continue;
    const name = camel(key);
    if (!(name in out)) {
      out[name] = /(image|url)$/i.test(key) && !/:(width|height|type|alt)$/.test(key) ? abs(value) || value : value;
      extra++;
    }
  }
  return out;
}`;

/** Extracts the page's metadata, with the addresses and status the render saw. */
export async function extractMetadata(session: PageSession, urlRequested: string | undefined): Promise<PageMetadata> {
  const found = bounded(await session.evaluate<unknown>(EXTRACT));
  return {
    urlRequested: urlRequested ?? null,
    urlResolved: session.response.url,
    statusCode: session.response.status ?? null,
    ...found,
  } as PageMetadata;
}
