import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { PageSession } from "../contracts/page-session.js";
import { pageError } from "../page/option-errors.js";

/**
 * `readable`: a reader view. Mozilla Readability (the library of Firefox's Reader View) finds the
 * page's main article in a copy of the document; the page is then replaced by a clean document:
 * the title, the byline and the article's own markup (scripts, forms, navigation, ads and
 * sidebars dropped by Readability) under one plain style sheet. Every capture format sees it.
 */

/** The reader view's style sheet: one readable column, images within it. */
const READER_CSS = `
html { background: #fff; color: #1b1b1b; }
body { max-width: 42em; margin: 0 auto; padding: 32px 24px 48px; font: 20px/1.6 "Liberation Serif", Georgia, serif; }
h1.rk-reader-title { font: 700 1.7em/1.25 "Liberation Sans", Arial, sans-serif; margin: 0 0 .4em; }
p.rk-reader-byline { font: .8em/1.4 "Liberation Sans", Arial, sans-serif; color: #555; margin: 0 0 1.5em; }
h2, h3, h4 { font-family: "Liberation Sans", Arial, sans-serif; line-height: 1.3; }
img, video, figure, svg { max-width: 100%; height: auto; }
pre, code { font-family: "Liberation Mono", monospace; font-size: .85em; white-space: pre-wrap; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 4px 8px; }
a { color: #0b57d0; }
`;

/** Fewest characters of text an article must have: less is a page without one (a menu, a link list). */
const MIN_ARTICLE_LENGTH = 140;

let readabilitySource: Promise<string> | undefined;

/** Readability's CommonJS file as an expression evaluating to its exports (read once). */
function readability(): Promise<string> {
  readabilitySource ??= (async () => {
    const file = createRequire(import.meta.url).resolve("@mozilla/readability/Readability.js");
    const text = await readFile(file, "utf8");
    return `(function () { var module = { exports: {} }, exports = module.exports;\n${text}\n;return module.exports; })()`;
  })();
  // A failed read is not remembered: the next render tries again.
  readabilitySource.catch(() => {
    readabilitySource = undefined;
  });
  return readabilitySource;
}

/** The in-page step: parse a clone, then replace the document's head and body with the reader view. */
function readerSource(library: string): string {
  return `({ css, minLength }) => {
  const exported = ${library};
  const Readability = exported.Readability || exported;
  const article = new Readability(document.cloneNode(true), { charThreshold: 100 }).parse();
  const text = article && article.content ? (article.textContent || "").replace(/s+/g, " ").trim() : "";
  if (text.length < minLength) return { found: false, length: text.length };
  const root = document.documentElement;
  const head = document.createElement("head");
  const meta = document.createElement("meta");
  meta.setAttribute("charset", "utf-8");
  const title = document.createElement("title");
  title.textContent = article.title || document.title || "";
  const style = document.createElement("style");
  style.textContent = css;
  head.append(meta, title, style);
  const body = document.createElement("body");
  const main = document.createElement("article");
  main.className = "rk-reader";
  if (article.title) {
    const h1 = document.createElement("h1");
    h1.className = "rk-reader-title";
    h1.textContent = article.title;
    main.append(h1);
  }
  const by = [article.byline, article.siteName].filter(Boolean).join(" · ");
  if (by) {
    const p = document.createElement("p");
    p.className = "rk-reader-byline";
    p.textContent = by;
    main.append(p);
  }
  const content = document.createElement("div");
  content.className = "rk-reader-content";
  content.innerHTML = article.content;
  main.append(content);
  body.append(main);
  for (const name of root.getAttributeNames()) if (name !== "lang" && name !== "dir") root.removeAttribute(name);
  if (article.lang) root.setAttribute("lang", article.lang);
  if (article.dir) root.setAttribute("dir", article.dir);
  try { document.adoptedStyleSheets = []; } catch (ignored) {}
  root.replaceChildren(head, body);
  window.scrollTo(0, 0);
  return { found: true, length: article.length || 0 };
}`;
}

/** Replaces the page with its reader view; fails the render when no article is found. */
export async function showReaderView(session: PageSession): Promise<number> {
  const outcome = await session.evaluate<{ found: boolean; length?: number }>(readerSource(await readability()), {
    css: READER_CSS,
    minLength: MIN_ARTICLE_LENGTH,
  });
  if (!outcome.found) {
    throw pageError(
      `readable: no article could be found in the page (Readability found ${outcome.length ?? 0} characters of main content, fewer than ${MIN_ARTICLE_LENGTH})`,
    );
  }
  return outcome.length ?? 0;
}
