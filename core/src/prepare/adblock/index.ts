/**
 * `block_ads`: filter lists (files or cached downloads) compiled into one Ghostery filter engine,
 * asked per request (network blocking) and once per page (element hiding).
 *
 * - `sources.ts`: what a configured list entry is (file or http(s) address) and how it is named in logs.
 * - `cache.ts`: the download cache under `cacheDir` (one file per address) and the serialised engine.
 * - `download.ts`: one bounded download (timeout, size cap, http/https only).
 * - `build.ts`: parses the lists into an engine (in a worker thread), with the engine cache.
 * - `blocker.ts` / `cosmetic.ts`: the `AdBlocker` the pages use.
 * - `lists.ts`: `AdblockLists`, loading, background refresh and back-off.
 */

export { AdblockLists } from "./lists.js";
export type { AdBlocker, AdblockSettings, AdblockTuning } from "./types.js";
