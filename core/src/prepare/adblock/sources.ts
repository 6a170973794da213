import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A configured filter list: a local file, read as it is, or an address, downloaded and cached. */
export type ListSource =
  | { kind: "file"; path: string; label: string }
  | { kind: "url"; url: string; label: string; cacheFile: string }
  | { kind: "invalid"; label: string; reason: string };

/** `scheme:` at the start of an entry (a Windows drive letter is one character, schemes are longer). */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The address as logs show it: scheme, host, port and path. Credentials and the query are
 * dropped (a subscription address may carry a token).
 */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? "?…" : ""}`;
}

/** Cache file of a downloaded list: named after a hash of its address (never the address itself). */
export function cacheFileName(url: string): string {
  return `list-${createHash("sha256").update(url, "utf8").digest("hex").slice(0, 32)}.txt`;
}

/** Classifies one `lists` entry; relative paths resolve against the working directory. */
export function parseSource(entry: string, cacheDir: string): ListSource {
  const text = entry.trim();
  const scheme = text.match(SCHEME)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "file", path: resolve(text), label: resolve(text) };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { kind: "invalid", label: "(unparsable address)", reason: "not a valid address" };
  }
  if (scheme === "file") {
    const path = fileURLToPath(url);
    return { kind: "file", path, label: path };
  }
  const label = redactUrl(url);
  if (scheme !== "http" && scheme !== "https") {
    return { kind: "invalid", label, reason: "only http and https addresses and file paths are supported" };
  }
  return { kind: "url", url: url.href, label, cacheFile: join(cacheDir, cacheFileName(url.href)) };
}
