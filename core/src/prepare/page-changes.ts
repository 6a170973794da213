import type { PageSession } from "../contracts/page-session.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { FINISH_ANIMATIONS_SOURCE, NO_ANIMATION_CSS } from "./page-scripts.js";

/**
 * Page changes of issue 11 that run as preparation steps: `hide_selector_x`, `highlight` and the
 * last step of `disable_animations`. Each runs one `evaluate` in the main frame.
 */

function invalid(option: string, why: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${why}`, { details: { option } });
}

/** Hides the elements each XPath expression matches; `{ bad, why }` for an expression the page refused. */
const HIDE_XPATH_SOURCE = `(expressions) => {
  let hidden = 0;
  for (const expression of expressions) {
    let result;
    try {
      result = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    } catch (error) {
      return { bad: expression, why: String(error && error.message || error).split("\\n")[0] };
    }
    for (let i = 0; i < result.snapshotLength; i++) {
      const node = result.snapshotItem(i);
      if (!node || node.nodeType !== 1 || !node.style) continue;
      node.style.setProperty("display", "none", "important");
      hidden++;
    }
  }
  return { hidden };
}`;

/** `hide_selector_x`: hides what the expressions match now (called twice: with `hide_selector`, and before capture). */
export async function hideXPath(session: PageSession, expressions: readonly string[]): Promise<number> {
  if (expressions.length === 0) return 0;
  const outcome = await session.evaluate<{ hidden?: number; bad?: string; why?: string }>(HIDE_XPATH_SOURCE, expressions);
  if (outcome.bad !== undefined) {
    const shown = outcome.bad.length > 80 ? `${outcome.bad.slice(0, 80)}…` : outcome.bad;
    throw invalid("hide_selector_x", `"${shown}" is not an XPath expression selecting elements (${outcome.why})`);
  }
  return outcome.hidden ?? 0;
}

/**
 * Wraps every case-insensitive occurrence of the words in a `<mark>`, in text nodes of HTML
 * elements only (never inside scripts, styles, form fields, templates, SVG or an earlier mark).
 * Answers `{ invalid }` naming a colour the browser does not know, else the number of marks.
 */
const HIGHLIGHT_SOURCE = `({ words, fg, bg }) => {
  if (!CSS.supports("color", fg)) return { invalid: "highlightfg" };
  if (!CSS.supports("color", bg)) return { invalid: "highlightbg" };
  const escape = (word) => word.replace(/[.*+?^\${}()|[\\]\\\\]/g, "\\\\$&");
  const pattern = new RegExp(words.map(escape).join("|"), "gi");
  const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEXTAREA", "INPUT", "SELECT", "OPTION", "TEMPLATE", "TITLE", "MARK"]);
  const html = "http://www.w3.org/1999/xhtml";
  const root = document.body || document.documentElement;
  if (!root) return { marks: 0 };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const parent = node.parentElement;
      if (!parent || parent.namespaceURI !== html || skip.has(parent.tagName) || parent.closest("svg, math, [data-rk-highlight]")) {
        return NodeFilter.FILTER_REJECT;
      }
      pattern.lastIndex = 0;
      return pattern.test(node.data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    },
  });
  const nodes = [];
  for (let node = walker.nextNode(); node && nodes.length < 20000; node = walker.nextNode()) nodes.push(node);
  let marks = 0;
  for (const node of nodes) {
    const text = node.data;
    const fragment = document.createDocumentFragment();
    let from = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      if (match[0] === "") { pattern.lastIndex++; continue; }
      if (match.index > from) fragment.append(text.slice(from, match.index));
      const mark = document.createElement("mark");
      mark.setAttribute("data-rk-highlight", "");
      mark.style.setProperty("color", fg, "important");
      mark.style.setProperty("background-color", bg, "important");
      mark.textContent = match[0];
      fragment.append(mark);
      marks++;
      from = match.index + match[0].length;
    }
    if (from < text.length) fragment.append(text.slice(from));
    node.replaceWith(fragment);
  }
  return { marks };
}`;

/** The words of `highlight` (`a|b`), trimmed, without empty ones. */
export function highlightWords(highlight: string | undefined): string[] {
  return (highlight ?? "")
    .split("|")
    .map((word) => word.trim())
    .filter((word) => word !== "");
}

/** `highlight`: marks the words in the page's text; resolves with the number of marks. */
export async function highlightText(session: PageSession, options: RenderOptions): Promise<number> {
  const words = highlightWords(options.highlight);
  if (words.length === 0) return 0;
  const fg = options.highlightfg.trim();
  const bg = options.highlightbg.trim();
  const outcome = await session.evaluate<{ marks?: number; invalid?: string }>(HIGHLIGHT_SOURCE, { words, fg, bg });
  if (outcome.invalid) throw invalid(outcome.invalid, "is not a colour this browser knows");
  return outcome.marks ?? 0;
}

/** `disable_animations` at preparation time: the CSS (also for pages without scripts). */
export async function stopCssAnimations(session: PageSession): Promise<void> {
  await session.addStyle(NO_ANIMATION_CSS);
}

/** `disable_animations` just before capture: every animation of the document is finished. */
export async function finishAnimations(session: PageSession): Promise<number> {
  return session.evaluate<number>(FINISH_ANIMATIONS_SOURCE);
}
