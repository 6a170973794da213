import type { PageSession } from "../../contracts/page-session.js";
import type { RequestInfo } from "../../contracts/page-settings.js";

/** Where filter lists come from and how often they are fetched again. */
export interface AdblockSettings {
  /**
   * Filter lists in Adblock Plus / uBlock syntax: file paths or http(s) addresses. Addresses are
   * downloaded once and cached under `cacheDir`; files are read as they are.
   */
  lists: readonly string[];
  /** Seconds before a cached download is fetched again (in the background). */
  refreshSeconds: number;
}

/** A loaded filter engine, asked per request and once per page for element hiding. */
export interface AdBlocker {
  /** Whether the request is an ad or tracker request to block. */
  blocks(request: RequestInfo): boolean;
  /** CSS that hides ad elements of the loaded page (site rules and generic rules matching its DOM). */
  cosmeticCss(session: PageSession): Promise<string>;
}

/** Limits of `AdblockLists`; the defaults suit production, tests shorten the back-off. */
export interface AdblockTuning {
  /** After a failed load or download, how long before it is tried again. Default 5 minutes. */
  retryMs: number;
  /** Budget of one list download. Default 30 s. */
  downloadTimeoutMs: number;
  /** Largest list accepted, in bytes. Default 20 MB. */
  maxListBytes: number;
  /** Least time between two checks for changed files and stale downloads. Default 1 s. */
  checkIntervalMs: number;
}

export const DEFAULT_TUNING: AdblockTuning = {
  retryMs: 5 * 60_000,
  downloadTimeoutMs: 30_000,
  maxListBytes: 20 * 1024 * 1024,
  checkIntervalMs: 1_000,
};
