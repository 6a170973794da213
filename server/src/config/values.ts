import { ConfigError } from "./error.js";

/** Small checkers of configuration values: each returns the checked value or throws naming `path`. */

export const fail = (path: string, what: string): never => {
  throw new ConfigError(`${path} ${what}`);
};

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function integer(value: unknown, path: string, min: number, max: number): number {
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
  return min === 1
    ? fail(path, `must be a positive integer (at most ${max})`)
    : fail(path, `must be an integer from ${min} to ${max}`);
}

export function string(value: unknown, path: string, min: number, max: number, pattern?: RegExp, what?: string): string {
  if (typeof value === "string" && value.length >= min && value.length <= max && (!pattern || pattern.test(value))) return value;
  return fail(path, what ?? `must be a string of ${min} to ${max} characters`);
}

export function boolean(value: unknown, path: string): boolean {
  return typeof value === "boolean" ? value : fail(path, "must be true or false");
}

export function object(value: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(value)) return fail(path, "must be an object");
  for (const key of Object.keys(value))
    if (!keys.includes(key)) fail(`${path}.${key}`, `is not a known key (known: ${keys.join(", ")})`);
  return value;
}

/** An http(s) address without query, fragment or credentials. */
export function httpAddress(value: unknown, path: string): string {
  const text = string(value, path, 1, 2048);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username || url.password) {
    fail(path, "must be an http(s) address without query, fragment or credentials");
  }
  return text;
}
