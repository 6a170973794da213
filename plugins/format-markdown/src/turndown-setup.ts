import TurndownService from "turndown";
import { taskListItems } from "turndown-plugin-gfm";
import { blockRules } from "./rules/blocks.js";
import { linkRules } from "./rules/links.js";
import { removeUnreadable } from "./rules/removals.js";
import { gfmTables } from "./rules/tables.js";

/**
 * Elements that never carry readable content: code, styles, metadata, embedded documents and
 * media (their children are fallback text) and form controls with option lists.
 */
export const DROPPED_ELEMENTS = [
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "title",
  "meta",
  "link",
  "base",
  "svg",
  "canvas",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "video",
  "audio",
  "map",
  "select",
  "textarea",
  "datalist",
] as const;

/** ATX headings, fenced code, `-` bullets, `_em_`, `**strong**`, inline links. */
export const TURNDOWN_OPTIONS: TurndownService.Options = {
  headingStyle: "atx",
  codeBlockStyle: "fenced",
  bulletListMarker: "-",
  emDelimiter: "_",
  strongDelimiter: "**",
  hr: "---",
  linkStyle: "inlined",
};

/**
 * The one converter setup, for Node (domino) and for the page (its own DOM). Later rules take
 * precedence in turndown. From turndown-plugin-gfm only task lists are used: its tables keep
 * header-less tables as HTML, leave `|` unescaped and break on multi-line cells, and its `~`
 * strikethrough is not understood by CommonMark renderers (rules/ replaces both).
 */
export function createTurndown(baseUrl?: string): TurndownService {
  const service = new TurndownService(TURNDOWN_OPTIONS);
  removeUnreadable(service, DROPPED_ELEMENTS);
  service.use(taskListItems);
  gfmTables(service);
  blockRules(service);
  linkRules(service, baseUrl);
  return service;
}

/**
 * `createTurndown` as source text: a function expression `(TurndownService, baseUrl) => service`
 * for the page, built from the same self-contained rule installers.
 */
export function turndownSetupSource(): string {
  return `(TurndownService, baseUrl) => {
  const service = new TurndownService(${JSON.stringify(TURNDOWN_OPTIONS)});
  (${removeUnreadable})(service, ${JSON.stringify(DROPPED_ELEMENTS)});
  service.use(${taskListItems});
  (${gfmTables})(service);
  (${blockRules})(service);
  (${linkRules})(service, baseUrl);
  return service;
}`;
}
