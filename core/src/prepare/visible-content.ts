import type { Box } from "../contracts/capture-settings.js";
import type { PageSession } from "../contracts/page-session.js";
import { withTimeout } from "../util/timeout.js";

/** Elements looked at, at most (the check stops at the first content it finds). */
const MAX_ELEMENTS = 50_000;

/**
 * In the page: whether anything visible lies in `area` (document CSS pixels; null: the viewport).
 * Visible: a box of non-zero size that overlaps the area, `visibility` visible and no
 * `content-visibility: hidden` ancestor (`checkVisibility`). Opacity is deliberately not looked at:
 * a fade-in that has not started is the usual reason for a blank capture, and the DOM's text is
 * content all the same. Content: a text node with non-blank text, a replaced or drawn element
 * (img, svg, canvas, video, iframe, embed, object, form controls), or an element with a background
 * image or a background colour other than the page's (html's, else body's, else white).
 */
const SOURCE = `({ area, maxElements }) => {
  const sx = window.scrollX;
  const sy = window.scrollY;
  const a = area || { x: sx, y: sy, width: window.innerWidth, height: window.innerHeight };
  const overlaps = (r) =>
    r.width > 0 && r.height > 0 &&
    r.left + sx < a.x + a.width && r.right + sx > a.x && r.top + sy < a.y + a.height && r.bottom + sy > a.y;
  const shown = (el) => (el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true);
  const transparent = (c) => !c || c === "transparent" || /^rgba\\(.*,\\s*0\\)$/.test(c);
  const html = document.documentElement;
  const body = document.body;
  const rootColour = [html, body].map((el) => (el ? getComputedStyle(el).backgroundColor : "")).find((c) => !transparent(c))
    || "rgb(255, 255, 255)";
  const MEDIA = new Set(["IMG", "SVG", "CANVAS", "VIDEO", "IFRAME", "EMBED", "OBJECT", "INPUT", "TEXTAREA", "SELECT", "BUTTON"]);
  const walker = document.createTreeWalker(body || html, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let node = walker.currentNode; node && seen < maxElements; node = walker.nextNode()) {
    seen++;
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement;
      if (!parent || !node.data.trim() || !shown(parent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (overlaps(range.getBoundingClientRect())) return true;
      continue;
    }
    const el = node;
    if (el === html || el === body) continue;
    const tag = el.tagName.toUpperCase();
    if (tag === "SCRIPT" || tag === "STYLE" || tag === "TEMPLATE" || tag === "NOSCRIPT") continue;
    if (!overlaps(el.getBoundingClientRect()) || !shown(el)) continue;
    if (MEDIA.has(tag)) return true;
    const style = getComputedStyle(el);
    if (style.backgroundImage && style.backgroundImage !== "none") return true;
    if (!transparent(style.backgroundColor) && style.backgroundColor !== rootColour) return true;
  }
  return false;
}`;

/**
 * Whether the DOM has visible content in `area` (document CSS pixels; absent: the viewport):
 * text, media with a size, or an element painted differently from the page's background (see
 * `SOURCE`). Used to decide whether a capture of one flat colour is worth a second look (content
 * in the DOM that may be about to paint) or is what the page shows (nothing visible in the DOM: an
 * empty page, or one that hides its body with `visibility`). Best effort: false when the page
 * cannot answer within `timeoutMs`.
 */
export async function hasVisibleContent(session: PageSession, area?: Box, timeoutMs = 2_000): Promise<boolean> {
  try {
    return await withTimeout(session.evaluate<boolean>(SOURCE, { area: area ?? null, maxElements: MAX_ELEMENTS }), timeoutMs);
  } catch {
    return false;
  }
}

/**
 * Waits for two animation frames in the page (bounded by `timeoutMs`; rAF may never fire), so a
 * capture that follows sees what the page painted since.
 */
export async function nextFrames(session: PageSession, timeoutMs = 1_000): Promise<void> {
  const source = `() => new Promise((resolve) => {
    const timer = setTimeout(resolve, ${Math.max(0, Math.floor(timeoutMs))});
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  })`;
  await withTimeout(session.evaluate(source), timeoutMs + 500).catch(() => undefined);
}
