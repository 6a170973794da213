export { type MarkdownFormatSettings, NODE_CONVERT_TIMEOUT_MS } from "./convert-off-thread.js";
export { escapeMarkdown, htmlToMarkdown, tidyMarkdown } from "./html-to-markdown.js";
export {
  ARTICLE_THRESHOLDS,
  MARKDOWN_FORMAT,
  MARKDOWN_RULES,
  MAX_NODE_HTML_CHARS,
  MarkdownFormatter,
} from "./markdown-formatter.js";
export { MARKDOWN_OPTIONS } from "./options.js";
export { type PageExtract, type PageExtractArgs, pageScript } from "./page-script.js";
export { markdownFormat } from "./plugin.js";
export { createTurndown, DROPPED_ELEMENTS, TURNDOWN_OPTIONS, turndownSetupSource } from "./turndown-setup.js";
