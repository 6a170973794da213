import { DEFAULT_ADBLOCK_LISTS } from "@renderkit/core/internal";
import type { ServerConfig } from "./types.js";
import { fail, integer, object, string } from "./values.js";

/** Default of `adblock.refreshSeconds`: lists are downloaded again once a day. */
export const DEFAULT_ADBLOCK_REFRESH_SECONDS = 86_400;
/** An entry of `adblock.lists` naming an address rather than a file. */
export const LIST_ADDRESS = /^[a-z][a-z0-9+.-]+:/i;

/** One filter list: an http(s) address or a file path. The message never repeats the value (it may carry a token). */
function filterList(value: unknown, path: string): string {
  const text = string(value, path, 1, 4096, /^\S(?:.*\S)?$/s, "must be a file path or an http(s) address (1 to 4096 characters)");
  if (!LIST_ADDRESS.test(text) || text.toLowerCase().startsWith("file:")) return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) fail(path, "must be a file path or an http(s) address");
  return text;
}

/** `adblock.lists`: at most 100 entries (the environment variable is split on commas first). */
export function filterLists(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length > 100)
    return fail(path, "must be a list of at most 100 file paths or http(s) addresses");
  return value.map((entry, i) => filterList(entry, `${path}[${i}]`));
}

/** `adblock: { lists, refreshSeconds }`: the filter lists of `block_ads` and how often they are downloaded. */
export function adblockConfig(value: unknown, path: string): ServerConfig["adblock"] {
  const v = object(value, path, ["lists", "refreshSeconds"]);
  return {
    lists: v.lists === undefined ? [...DEFAULT_ADBLOCK_LISTS] : filterLists(v.lists, `${path}.lists`),
    refreshSeconds:
      v.refreshSeconds === undefined
        ? DEFAULT_ADBLOCK_REFRESH_SECONDS
        : integer(v.refreshSeconds, `${path}.refreshSeconds`, 60, 31_536_000),
  };
}
