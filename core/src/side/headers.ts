import type { PageResponse } from "../contracts/page-session.js";

/** Most response headers kept, and the longest value (Chromium already caps a response's headers). */
const MAX_HEADERS = 200;
const MAX_VALUE_CHARS = 16 * 1024;

/** What `save_headers` stores. */
export type SavedHeaders =
  | { source: "url"; url: string; status: number | null; headers: Record<string, string> }
  | { source: "html"; url: null; status: null; headers: null; note: string };

/**
 * The main document's response: its final address (after redirects), status and headers as the
 * browser received them (lower-case names, repeated ones such as `set-cookie` joined by a newline).
 * Supplied html has no HTTP response: the file says so instead of failing.
 */
export function savedHeaders(response: PageResponse, fromHtml: boolean): SavedHeaders {
  if (fromHtml) {
    return {
      source: "html",
      url: null,
      status: null,
      headers: null,
      note: "The page was supplied as html: it has no HTTP response.",
    };
  }
  const headers: Record<string, string> = {};
  const entries = Object.entries(response.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, MAX_HEADERS);
  for (const [name, value] of entries) headers[name] = value.length > MAX_VALUE_CHARS ? value.slice(0, MAX_VALUE_CHARS) : value;
  return { source: "url", url: response.url, status: response.status ?? null, headers };
}
