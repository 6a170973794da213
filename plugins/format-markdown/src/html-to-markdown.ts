import TurndownService from "turndown";
import { createTurndown } from "./turndown-setup.js";

/**
 * Blank-line tidy-up outside code blocks: whitespace-only lines become empty, trailing spaces
 * go (except a hard break's two), runs of blank lines become one, and the text ends with a
 * single newline.
 */
export function tidyMarkdown(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const raw of markdown.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence === undefined) {
      if (marker) fence = marker;
      const line = raw.trim() === "" ? "" : raw.replace(/\s+$/, (tail) => (tail.startsWith("  ") ? "  " : ""));
      if (line === "") {
        if (out.length === 0 || out[out.length - 1] === "") continue;
        // A hard break before a blank line breaks nothing.
        out[out.length - 1] = out[out.length - 1]!.replace(/ +$/, "");
      }
      out.push(line);
    } else {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && raw.trim() === marker) fence = undefined;
      out.push(raw);
    }
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  if (fence === undefined && out.length > 0) out[out.length - 1] = out[out.length - 1]!.replace(/ +$/, "");
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}

/** The first `<base href>` of a document, resolved against `baseUrl` (as a browser would). */
function documentBase(html: string, baseUrl: string | undefined): string | undefined {
  const match = /<base\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html.slice(0, 65_536));
  const href = match?.[1] ?? match?.[2] ?? match?.[3];
  if (href === undefined) return baseUrl;
  try {
    return new URL(href.trim(), baseUrl).href;
  } catch {
    return baseUrl;
  }
}

/**
 * Converts HTML (a fragment or a whole document) to GitHub-flavoured markdown without a
 * browser, with the same rules as the `md` format. Relative links and images are resolved
 * against the document's `<base href>`, else against `baseUrl`; without either they stay as
 * written. Scripts, styles, `<head>` and `<title>` never reach the output.
 *
 * Synchronous and about 1 MB of HTML per second (turndown on domino): large documents block the
 * event loop for that long.
 */
export function htmlToMarkdown(html: string, baseUrl?: string): string {
  return tidyMarkdown(createTurndown(documentBase(html, baseUrl)).turndown(html));
}

const escaper = new TurndownService();

/** Escapes markdown syntax in plain text (turndown's rules), e.g. for a title line. */
export function escapeMarkdown(text: string): string {
  return escaper.escape(text);
}
