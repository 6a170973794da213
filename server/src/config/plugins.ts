import type { PluginEntry } from "./types.js";
import { fail, isObject, object, string } from "./values.js";

/**
 * `plugins`: third-party plugins by package name or file path, each `"specifier"` or
 * `{ "module": "specifier", "options": {...} }`. Loaded by `renderer/load-plugins.ts`.
 */
export function pluginEntries(value: unknown, path: string): PluginEntry[] {
  if (!Array.isArray(value) || value.length > 100) return fail(path, "must be a list of at most 100 plugins");
  return value.map((entry, i) => {
    const at = `${path}[${i}]`;
    if (typeof entry === "string") return string(entry, at, 1, 4096, /^\S(.*\S)?$/, "must be a package name or a file path");
    // Neither a string nor an object: say both shapes, not just "must be an object".
    if (!isObject(entry)) fail(at, 'must be a package name, a file path or { "module": ..., "options": {...} }');
    const v = object(entry, at, ["module", "options"]);
    const module = string(v.module, `${at}.module`, 1, 4096, /^\S(.*\S)?$/, "must be a package name or a file path");
    if (v.options !== undefined && !isObject(v.options)) fail(`${at}.options`, "must be an object");
    return v.options === undefined ? { module } : { module, options: v.options as Record<string, unknown> };
  });
}
