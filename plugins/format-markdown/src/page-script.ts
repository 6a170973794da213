import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { DROPPED_ELEMENTS, turndownSetupSource } from "./turndown-setup.js";

/** What the in-page step hands back (JSON). */
export interface PageExtract {
  /** The converted markdown (not yet tidied); absent when conversion failed in the page. */
  markdown?: string;
  /** HTML of the chosen part, only when `markdown` is absent (converted in Node instead). */
  html?: string;
  /** `document.baseURI` (the final address after redirects, or a `<base href>`). */
  baseUrl: string;
  /** The article's title (Readability's, without the site name) or `document.title`. */
  title: string;
  /** True when main-content extraction chose the content. */
  extracted: boolean;
  /** True when the chosen content has an `<h1>`. */
  hasH1: boolean;
  /** Set when `selector` matched nothing (`missing`) or is not valid CSS (`invalid`). */
  selector?: "missing" | "invalid";
}

/** Arguments of the in-page step. */
export interface PageExtractArgs {
  selector?: string;
  mainContent: boolean;
  /** An extracted article with at least this much text (characters) is used. */
  articleChars: number;
  /** A shorter one is used when it has this much text and this share of the page's text. */
  shortArticleChars: number;
  shortArticleShare: number;
}

/**
 * Runs in the page after its scripts, on a clone of the document (the live page is never
 * changed: other formats may capture it afterwards). The clone is walked in step with the live
 * tree so that computed styles and loaded images can be consulted:
 * - subtrees the page does not display (`display: none`, which also covers `hide_selector`)
 *   and elements without readable content (DROPPED_ELEMENTS) are removed;
 * - links and images get absolute addresses (against `document.baseURI`), images the source
 *   the browser chose (`currentSrc`) or a lazy loader's `data-src`; 1×1 images are dropped;
 * - the chosen part is converted in the page by turndown with the rules of `createTurndown`
 *   (shipped as source): no HTML parse in Node, and the work runs in the browser's renderer
 *   process instead of blocking the event loop. If that throws (a page that broke DOM
 *   built-ins), the HTML is returned for conversion in Node.
 * - with `mainContent`, Readability runs on a second clone. Its article is used when it is long
 *   enough (`articleChars`), or shorter but most of what the page says (`shortArticleChars` and
 *   `shortArticleShare`: a notice on a small page); otherwise, or when Readability fails, the
 *   whole body is used. Its title gives way to the page's only `<h1>` when the title contains
 *   it ("flat() - Web docs" becomes "flat()").
 */
const BODY = `
  const base = document.baseURI;
  const textLength = (el) => (el.textContent || "").replace(/\\s+/g, " ").trim().length;
  const abs = (value) => { try { return new URL(value.trim(), base).href; } catch { return null; } };
  const firstOfSrcset = (value) => (value || "").split(",")[0].trim().split(/\\s+/)[0];
  const drop = new Set(__RK_DROPPED__);
  const title = document.title || "";
  const root = document.body || document.documentElement;
  if (!root) return { markdown: "", baseUrl: base, title, extracted: false, hasH1: false };
  let target = null;
  if (args.selector) {
    try { target = document.querySelector(args.selector); } catch { return { markdown: "", baseUrl: base, title, extracted: false, hasH1: false, selector: "invalid" }; }
  }
  const clone = document.cloneNode(true);
  const cloneRoot = document.body ? clone.body : clone.documentElement;
  const live = root.getElementsByTagName("*");
  const copy = cloneRoot.getElementsByTagName("*");
  let cloneTarget = null;
  if (target === root || target === document.documentElement) cloneTarget = cloneRoot;
  const removed = [];
  let skip = null;
  for (let i = 0; i < live.length; i++) {
    const el = live[i];
    const c = copy[i];
    if (el === target) cloneTarget = c;
    if (skip && skip.contains(el)) continue;
    const name = el.localName;
    if (drop.has(name) || getComputedStyle(el).display === "none") { removed.push(c); skip = el; continue; }
    if (name === "a" || name === "area") {
      const href = el.getAttribute("href");
      if (href !== null) {
        const url = abs(href);
        if (url === null) continue;
        if (/^(javascript|vbscript):/i.test(url)) c.removeAttribute("href"); else c.setAttribute("href", url);
      }
    } else if (name === "img") {
      let src = el.currentSrc || el.getAttribute("src") || "";
      if (!src || src.startsWith("data:")) {
        // A lazy loader's placeholder (often a 1x1 data: GIF): the real address is in an attribute.
        const lazy = el.getAttribute("data-src") || el.getAttribute("data-lazy-src") || el.getAttribute("data-original") || firstOfSrcset(el.getAttribute("data-srcset") || el.getAttribute("srcset"));
        if (lazy) src = lazy;
      } else if (el.complete && el.naturalWidth === 1 && el.naturalHeight === 1) {
        removed.push(c); // a tracking pixel
        continue;
      }
      const url = src ? abs(src) : null;
      if (url !== null) c.setAttribute("src", url);
      c.removeAttribute("srcset");
    }
  }
  for (const c of removed) c.remove();
  const convert = (node, extra) => {
    const meta = { baseUrl: base, title, extracted: false, hasH1: !!node.querySelector("h1"), ...extra };
    try {
      const TurndownService = __RK_TURNDOWN__;
      return { markdown: (__RK_SETUP__)(TurndownService, base).turndown(node), ...meta };
    } catch {
      return { html: node.innerHTML, ...meta };
    }
  };
  if (args.selector) {
    if (!cloneTarget || !cloneTarget.isConnected) return { markdown: "", baseUrl: base, title, extracted: false, hasH1: false, selector: "missing" };
    // turndown converts the children of what it is given: wrap, so that the element's own rule applies.
    const wrapper = clone.createElement("div");
    wrapper.append(cloneTarget);
    return convert(wrapper, {});
  }
  if (args.mainContent) {
    let article = null;
    try {
      const Readability = __RK_READABILITY__;
      article = new Readability(clone.cloneNode(true), { keepClasses: true, serializer: (el) => el }).parse();
    } catch {}
    const content = article && article.content;
    const chars = content ? textLength(content) : 0;
    const share = chars / Math.max(1, textLength(cloneRoot));
    if (chars >= args.articleChars || (chars >= args.shortArticleChars && share >= args.shortArticleShare)) {
      // The page's only <h1> names the article better than a title with the site's name in it.
      const h1s = cloneRoot.getElementsByTagName("h1");
      const h1 = h1s.length === 1 ? (h1s[0].textContent || "").replace(/\\s+/g, " ").trim() : "";
      const named = article.title || title;
      return convert(content, { title: h1 && (named.includes(h1) || title.includes(h1)) ? h1 : named, extracted: true });
    }
  }
  return convert(cloneRoot, {});
`;

const sources = new Map<string, Promise<string>>();

/** A CommonJS or UMD file of a dependency as an expression evaluating to its `module.exports`. */
function moduleExpression(specifier: string): Promise<string> {
  let source = sources.get(specifier);
  if (!source) {
    source = (async () => {
      const text = await readFile(createRequire(import.meta.url).resolve(specifier), "utf8");
      return `(function () { var module = { exports: {} }, exports = module.exports;\n${text}\n;return module.exports; })()`;
    })();
    // A failed read is not remembered: the next render tries again.
    source.catch(() => sources.delete(specifier));
    sources.set(specifier, source);
  }
  return source;
}

const scripts = new Map<boolean, Promise<string>>();

/** The in-page step as a function expression taking `PageExtractArgs` (turndown, and Readability when needed, inlined). */
export function pageScript(mainContent: boolean): Promise<string> {
  let script = scripts.get(mainContent);
  if (!script) {
    script = (async () => {
      const turndown = await moduleExpression("turndown/lib/turndown.browser.umd.js");
      const readability = mainContent ? await moduleExpression("@mozilla/readability/Readability.js") : "null";
      const parts: Record<string, string> = {
        DROPPED: JSON.stringify(DROPPED_ELEMENTS),
        TURNDOWN: turndown,
        SETUP: turndownSetupSource(),
        READABILITY: readability,
      };
      // One pass, so that nothing inserted is scanned for placeholders again.
      const body = BODY.replace(/__RK_([A-Z]+)__/g, (_, name: string) => parts[name]!);
      return `(args) => {${body}}`;
    })();
    script.catch(() => scripts.delete(mainContent));
    scripts.set(mainContent, script);
  }
  return script;
}
