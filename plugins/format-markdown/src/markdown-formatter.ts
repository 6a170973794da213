import {
  abortReason,
  type FormatContext,
  type FormatOutput,
  type FormatSpec,
  type Formatter,
  type OptionRule,
  type PageSession,
  RenderError,
} from "@renderkit/core";
import { convertOffThread, type MarkdownFormatSettings } from "./convert-off-thread.js";
import { escapeMarkdown, tidyMarkdown } from "./html-to-markdown.js";
import { MARKDOWN_OPTIONS } from "./options.js";
import { type PageExtract, type PageExtractArgs, pageScript } from "./page-script.js";

/**
 * The `md` format (also sent as `markdown`): needs only the engine's `content` capability (an
 * in-page script). It is what `save_markdown` stores next to renders of other formats.
 */
export const MARKDOWN_FORMAT: FormatSpec = {
  format: "md",
  contentType: "text/markdown; charset=utf-8",
  extension: "md",
  requires: ["content"],
  aliases: ["markdown"],
  sideRender: "markdown",
};

/** Combinations the md format cannot honour (400 `InvalidOptions`). */
export const MARKDOWN_RULES: readonly OptionRule[] = [
  {
    option: "disableLigatures",
    when: (o, format) => o.disableLigatures && format === "md",
    why: "cannot be used with format md: markdown is text without fonts",
  },
];

/**
 * When Readability's article is trusted over the whole body: 500 characters of text (its own
 * default threshold), or at least 100 that are 30% of the page's text (a short notice on a
 * small page). Below that it has usually picked a fragment of a page that is not an article
 * (one card of a landing page). Measured on the fixtures in the README.
 */
export const ARTICLE_THRESHOLDS = { articleChars: 500, shortArticleChars: 100, shortArticleShare: 0.3 } as const;

/** HTML converted in Node (only when the page could not convert) is cut to this length first. */
export const MAX_NODE_HTML_CHARS = 4 * 1024 * 1024;

/**
 * The rendered page (after its scripts, `js`, `click` and `hide_selector`) as GitHub-flavoured
 * markdown. With `selector`, only that element; with `md_main_content`, only the main content.
 * Result extra: `truncated` (only when a page too large to convert in the browser was cut).
 */
export class MarkdownFormatter implements Formatter {
  readonly name = "@renderkit/format-markdown";
  readonly formats = [MARKDOWN_FORMAT];
  readonly options = MARKDOWN_OPTIONS;
  readonly rules = MARKDOWN_RULES;

  constructor(private readonly settings: MarkdownFormatSettings = {}) {}

  async render(session: PageSession, context: FormatContext): Promise<FormatOutput> {
    const { options, signal } = context;
    const mainContent = options.mdMainContent === true;
    const args: PageExtractArgs = { selector: options.selector, mainContent, ...ARTICLE_THRESHOLDS };
    let extract = await session.evaluate<PageExtract>(await pageScript(mainContent), args);
    if (signal.aborted) throw abortReason(signal);
    if (extract.selector === "invalid") {
      throw new RenderError("InvalidOptions", `Option selector: "${options.selector}" is not a valid CSS selector`, {
        details: { option: "selector" },
      });
    }
    if (extract.selector === "missing") {
      if (options.failIfSelectorMissing) {
        throw new RenderError("EngineResponseNotOkError", `selector: nothing visible matches "${options.selector}"`);
      }
      // As for screenshots: without fail_if_selector_missing, the whole page.
      extract = await session.evaluate<PageExtract>(await pageScript(mainContent), { ...args, selector: undefined });
      if (signal.aborted) throw abortReason(signal);
    }
    let truncated = false;
    let markdown: string;
    if (extract.markdown !== undefined) {
      markdown = tidyMarkdown(extract.markdown);
    } else {
      // The page broke the DOM built-ins turndown needs: convert its HTML here, within bounds.
      let html = extract.html ?? "";
      truncated = html.length > MAX_NODE_HTML_CHARS;
      if (truncated) html = html.slice(0, MAX_NODE_HTML_CHARS);
      context.logger.debug("converting markdown in node", { renderId: context.renderId, htmlChars: html.length });
      markdown = await convertOffThread(html, extract.baseUrl, signal, this.settings.nodeConvertTimeoutMs);
    }
    const title = extract.title.replace(/\s+/g, " ").trim();
    if (extract.extracted && !extract.hasH1 && title) markdown = `# ${escapeMarkdown(title)}\n\n${markdown}`;
    return { body: Buffer.from(markdown, "utf8"), extras: truncated ? { truncated } : undefined };
  }
}
