import type TurndownService from "turndown";

/**
 * Links and images with absolute addresses (resolved against `baseUrl`; without it, relative
 * ones stay as written). Script links keep only their text, empty links vanish, images with
 * inline data (placeholders, icons, pixels) are dropped. Self-contained (no reference outside
 * its body): the page step ships it as source text.
 */
export function linkRules(service: TurndownService, baseUrl: string | undefined): void {
  const resolve = (raw: string | null) => {
    const value = raw?.trim();
    if (!value) return undefined;
    let url: URL;
    try {
      url = new URL(value, baseUrl);
    } catch {
      return /^[a-z][a-z0-9+.-]*:/i.test(value) ? undefined : value;
    }
    return url.protocol === "javascript:" || url.protocol === "vbscript:" ? undefined : url.href;
  };
  // turndown's escaping of link destinations.
  const destination = (url: string) => {
    const escaped = url.replace(/([<>()])/g, "\\$1");
    return escaped.includes(" ") ? `<${escaped}>` : escaped;
  };
  const titlePart = (node: Element) => {
    const title = node.getAttribute("title")?.replace(/\s+/g, " ").trim();
    return title ? ` "${title.replace(/"/g, '\\"')}"` : "";
  };

  service.addRule("rkLink", {
    filter: (node) => node.nodeName === "A" && node.getAttribute("href") !== null,
    replacement: (content, node) => {
      const href = resolve(node.getAttribute("href"));
      if (!content.trim()) return "";
      if (href === undefined) return content;
      // A link around blocks (a card: image, heading, teaser) becomes one line of text, a block of
      // its own unless it is alone in a list item or cell.
      const alone = ["LI", "TD", "TH"].includes(node.parentNode?.nodeName ?? "") && !node.previousSibling && !node.nextSibling;
      if (!content.includes("\n")) return `[${content}](${destination(href)}${titlePart(node)})`;
      const text = content
        .replace(/^\s*#{1,6}\s+/gm, "")
        .replace(/\s*\n+\s*/g, " ")
        .trim();
      const link = `[${text}](${destination(href)}${titlePart(node)})`;
      return alone ? link : `\n\n${link}\n\n`;
    },
  });
  service.addRule("rkImage", {
    filter: "img",
    replacement: (_content, node) => {
      const src = resolve(node.getAttribute("src"));
      if (src === undefined || src.startsWith("data:")) return "";
      const alt = service.escape((node.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim());
      return `![${alt}](${destination(src)}${titlePart(node)})`;
    },
  });
}
