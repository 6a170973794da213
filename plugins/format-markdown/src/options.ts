import { bool } from "@renderkit/core";

/**
 * Request options this format adds. Names are camelCase here; requests may also spell them
 * snake_case (`md_main_content`), as every option.
 */
export const MARKDOWN_OPTIONS = {
  mdMainContent: bool(
    "md format: keep only the page's main content (Readability), with a `# title` heading; falls back to the whole page when no article is found.",
    { default: false },
  ),
} as const;
