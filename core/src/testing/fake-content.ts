/**
 * What the fake engine reads from a page's HTML without a browser: its title, its text as lines,
 * and its elements' tag names, ids and classes, for the simple selectors its pages answer.
 */
export interface FakeContent {
  /** The HTML as given. */
  html: string;
  /** `<title>`, whitespace collapsed; empty without one. */
  title: string;
  /** The body's text a reader sees, one entry per block (heading, paragraph...), no markup. */
  lines: string[];
  /** Whether an element matches a simple CSS selector (see `matches`). */
  has(selector: string): boolean;
  /** How many elements match a simple CSS selector. */
  count(selector: string): number;
}

interface Element {
  tag: string;
  id?: string;
  classes: string[];
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Elements that end a line of text. */
const BLOCKS =
  "address|article|aside|blockquote|br|dd|div|dl|dt|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|td|th|tr|ul";

function textLines(html: string): string[] {
  const body = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(head|title|script|style|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(new RegExp(`</?(${BLOCKS})\\b[^>]*>`, "gi"), "\n")
    .replace(/<[^>]*>/g, "");
  return decodeEntities(body)
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "");
}

function elements(html: string): Element[] {
  const found: Element[] = [];
  for (const match of html.replace(/<!--[\s\S]*?-->/g, "").matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const attributes = match[2] ?? "";
    const id = /\bid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
    const classes = /\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
    found.push({
      tag: (match[1] ?? "").toLowerCase(),
      id: id ? (id[1] ?? id[2] ?? id[3]) : undefined,
      classes: classes ? (classes[1] ?? classes[2] ?? classes[3] ?? "").split(/\s+/).filter(Boolean) : [],
    });
  }
  // A parsed document always has these, whatever the markup says.
  for (const tag of ["html", "head", "body"]) if (!found.some((e) => e.tag === tag)) found.push({ tag, classes: [] });
  return found;
}

/** `tag`, `#id`, `.class` and their combinations (`p.note#first`), or `*`. */
const SIMPLE = /^([a-zA-Z][\w-]*|\*)?((?:[#.][\w-]+)*)$/;

/**
 * Whether `element` matches `selector`: a comma list of simple selectors. Anything else (a
 * combinator, an attribute, a pseudo-class) matches nothing on a fake page.
 */
function matches(element: Element, selector: string): boolean {
  return selector.split(",").some((part) => {
    const simple = SIMPLE.exec(part.trim());
    if (!simple || part.trim() === "") return false;
    const tag = simple[1];
    if (tag && tag !== "*" && tag.toLowerCase() !== element.tag) return false;
    for (const [, kind, name] of (simple[2] ?? "").matchAll(/([#.])([\w-]+)/g)) {
      if (kind === "#" ? element.id !== name : !element.classes.includes(name ?? "")) return false;
    }
    return true;
  });
}

/** Reads `html` once; the answers are fixed for the page's life (the fake runs no script). */
export function readContent(html: string): FakeContent {
  const all = elements(html);
  const title = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1] ?? "")
    .replace(/\s+/g, " ")
    .trim();
  const count = (selector: string) => all.filter((e) => matches(e, selector)).length;
  return { html, title, lines: textLines(html), has: (selector) => count(selector) > 0, count };
}
