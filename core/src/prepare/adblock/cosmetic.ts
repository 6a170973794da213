import { type FiltersEngine, Request } from "@ghostery/adblocker";
import type { PageSession } from "../../contracts/page-session.js";

/** What the page tells the engine about its DOM: the tokens generic hiding rules are indexed by. */
export interface DomFeatures {
  classes: string[];
  ids: string[];
  hrefs: string[];
}

/** Bounds of the DOM scan, so a huge page cannot make the step slow or the answer big. */
export const DOM_LIMITS = { elements: 20_000, classes: 4_000, ids: 2_000, hrefs: 2_000, length: 300 } as const;

/**
 * Runs in the page: distinct class names, ids and `href` attribute values (as written) of the
 * document's elements, each list and each value bounded.
 */
const COLLECT = `(limits) => {
  const classes = new Set(), ids = new Set(), hrefs = new Set();
  const add = (set, value, max) => {
    if (typeof value === "string" && value !== "" && value.length <= limits.length && set.size < max) set.add(value);
  };
  const skip = new Set(["HTML", "HEAD", "BODY", "SCRIPT", "STYLE", "META", "LINK", "BR"]);
  const elements = document.querySelectorAll("[class], [id], [href]");
  const count = Math.min(elements.length, limits.elements);
  for (let i = 0; i < count; i += 1) {
    const element = elements[i];
    if (skip.has(element.nodeName.toUpperCase())) continue;
    add(ids, element.getAttribute("id"), limits.ids);
    add(hrefs, element.getAttribute("href"), limits.hrefs);
    const list = element.classList;
    for (let j = 0; list && j < list.length; j += 1) add(classes, list[j], limits.classes);
  }
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs] };
}`;

/** The page's DOM features; empty when the page cannot be asked (the site's own rules still apply). */
async function domFeatures(session: PageSession): Promise<DomFeatures> {
  try {
    const found = await session.evaluate<DomFeatures>(COLLECT, DOM_LIMITS);
    const strings = (value: unknown): string[] =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
    return { classes: strings(found?.classes), ids: strings(found?.ids), hrefs: strings(found?.hrefs) };
  } catch {
    return { classes: [], ids: [], hrefs: [] };
  }
}

/** Hostname and registrable domain of the page, as the engine indexes site-specific rules. */
function site(url: string): { url: string; hostname: string; domain: string } {
  if (!/^https?:/i.test(url)) return { url, hostname: "", domain: "" };
  const parsed = Request.fromRawDetails({ url, type: "main_frame" });
  return { url, hostname: parsed.hostname, domain: parsed.domain };
}

/**
 * Element-hiding CSS for the loaded page: the rules of its site plus the generic rules whose
 * classes, ids or links occur in its DOM (how Ghostery's content script asks the engine), as
 * `display: none !important` rules. Empty when nothing applies. Scriptlets and procedural
 * selectors are not used.
 */
export async function cosmeticCss(engine: FiltersEngine, session: PageSession): Promise<string> {
  const page = site(session.response.url);
  const features = await domFeatures(session);
  try {
    const { styles } = engine.getCosmeticsFilters({
      ...page,
      ...features,
      getBaseRules: true,
      getRulesFromDOM: true,
      getRulesFromHostname: true,
      getInjectionRules: false,
      getExtendedRules: false,
    });
    return styles.trim();
  } catch {
    return "";
  }
}
