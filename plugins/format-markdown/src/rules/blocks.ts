import type TurndownService from "turndown";

/**
 * Structural rules: code blocks (with their language), list items, headings, buttons and
 * strikethrough. Self-contained (no reference outside its body): the page step ships it as
 * source text.
 */
export function blockRules(service: TurndownService): void {
  const HEADINGS = ["H1", "H2", "H3", "H4", "H5", "H6"];
  // `language-x`, `lang-x` (Prism, highlight.js, markdown renderers), `highlight-source-x` (GitHub).
  const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight-text)-([\w#+.-]+)/i;

  const codeLanguage = (pre: Element, code: Element | undefined) => {
    for (const el of [code, pre, pre.parentNode as Element | null]) {
      if (el?.nodeType !== 1) continue;
      const named = el.getAttribute("data-language") ?? el.getAttribute("data-lang");
      if (named && /^[\w#+.-]+$/.test(named)) return named.toLowerCase();
      const match = LANGUAGE_CLASS.exec(el.getAttribute("class") ?? "");
      if (match) return match[1]!.toLowerCase();
    }
    return "";
  };

  const isInside = (node: Node, names: string[]) => {
    for (let at = node.parentNode; at; at = at.parentNode) if (names.includes(at.nodeName)) return true;
    return false;
  };

  service.addRule("rkCodeBlock", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      // Whitespace around a lone <code> is markup indentation, not code.
      const inner = Array.from(node.childNodes).filter((n) => n.nodeType !== 3 || n.textContent?.trim());
      const lone = inner.length === 1 && inner[0]!.nodeName === "CODE" ? (inner[0] as Element) : undefined;
      const code = ((lone ?? node).textContent ?? "").replace(/\n$/, "");
      if (!code.trim()) return "";
      // A fence longer than any run of backticks that starts a line of the code.
      let size = 3;
      for (const match of code.matchAll(/^\s*(`{3,})/gm)) size = Math.max(size, match[1]!.length + 1);
      const fence = "`".repeat(size);
      return `\n\n${fence}${codeLanguage(node, lone ?? node.getElementsByTagName("code")[0])}\n${code}\n${fence}\n\n`;
    },
  });

  // turndown writes `-   item` with continuation lines under four spaces; CommonMark needs only
  // the marker's width, which is what people and prettier write.
  service.addRule("rkListItem", {
    filter: "li",
    replacement: (content, node, options) => {
      const parent = node.parentNode as Element | null;
      let marker = `${options.bulletListMarker ?? "-"} `;
      if (parent?.nodeName === "OL") {
        const start = Number.parseInt(parent.getAttribute("start") ?? "1", 10);
        const index = Array.prototype.indexOf.call(parent.children, node);
        marker = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const paragraph = /\n$/.test(content);
      const body =
        content
          .replace(/^\n+/, "")
          .replace(/\n+$/, "")
          .replace(/^\[([ x])\]\s+/, "[$1] ") + (paragraph ? "\n" : "");
      return marker + body.replace(/\n(?=.)/g, `\n${" ".repeat(marker.length)}`) + (node.nextSibling ? "\n" : "");
    },
  });

  service.addRule("rkHeading", {
    filter: ["h1", "h2", "h3", "h4", "h5", "h6"],
    replacement: (content, node) => {
      const text = content.replace(/\s*\n+\s*/g, " ").trim();
      return text ? `\n\n${"#".repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : "";
    },
  });

  // Buttons are controls ("Menu", "Close", "Subscribe"), except the titles of accordions.
  service.addRule("rkButton", {
    filter: (node) => node.nodeName === "BUTTON" && !isInside(node, [...HEADINGS, "SUMMARY"]),
    replacement: () => "",
  });

  // `~~` rather than turndown-plugin-gfm's single `~`: both are GFM, but CommonMark renderers
  // with a strikethrough extension (markdown-it, Python-Markdown) only know the double one.
  service.addRule("rkStrikethrough", {
    filter: ["del", "s", "strike" as "s"],
    replacement: (content) => (content.trim() ? `~~${content}~~` : content),
  });
}
