import type { ResourceKind } from "../../index.js";

const KINDS: ReadonlySet<string> = new Set<ResourceKind>([
  "document",
  "stylesheet",
  "image",
  "media",
  "font",
  "script",
  "xhr",
  "fetch",
  "websocket",
  "manifest",
  "ping",
  "other",
]);

/**
 * A browser library's resource type (Chromium's, in lower case, as Playwright and Puppeteer both
 * report it) as a `ResourceKind`; `other` for the rest (`prefetch`, `preflight`, `eventsource`...).
 */
export function resourceKind(type: string): ResourceKind {
  return KINDS.has(type) ? (type as ResourceKind) : "other";
}
