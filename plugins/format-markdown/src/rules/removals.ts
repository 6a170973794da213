import type TurndownService from "turndown";

/**
 * Drops `dropped` elements (lower-case names) and closed dialogs with their content.
 * Self-contained (no reference outside its body): the page step ships it as source text.
 */
export function removeUnreadable(service: TurndownService, dropped: readonly string[]): void {
  const names = new Set(dropped.map((name) => name.toUpperCase()));
  service.remove((node) => names.has(node.nodeName.toUpperCase()) || (node.nodeName === "DIALOG" && !node.hasAttribute("open")));
}
