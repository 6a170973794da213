import { definePlugin, FORMATTER } from "@renderkit/core";
import { MarkdownFormatter } from "./markdown-formatter.js";

/** The `md` format (turndown + GFM, Readability for `md_main_content`). No options. */
export const markdownFormat = definePlugin(() => ({
  name: "@renderkit/format-markdown",
  register({ container }) {
    container.register(FORMATTER, { useValue: new MarkdownFormatter() });
  },
}));
