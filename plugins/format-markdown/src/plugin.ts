import { definePlugin, FORMATTER } from "@renderkit/core";
import { checkMarkdownSettings, type MarkdownFormatSettings } from "./convert-off-thread.js";
import { MarkdownFormatter } from "./markdown-formatter.js";

/** The `md` format (turndown + GFM, Readability for `md_main_content`). Settings all optional. */
export const markdownFormat = definePlugin((settings: MarkdownFormatSettings = {}) => {
  checkMarkdownSettings(settings);
  return {
    name: "@renderkit/format-markdown",
    register({ provide }) {
      provide(FORMATTER, new MarkdownFormatter(settings));
    },
  };
});
