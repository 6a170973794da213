import { readFile, stat } from "node:fs/promises";
import type { Logger } from "../../contracts/logger.js";
import type { FilterBlocker } from "./blocker.js";
import { readCachedList, removeStaleTemps, writeCachedList } from "./cache.js";
import { downloadList } from "./download.js";
import { type ListSource, parseSource } from "./sources.js";
import { type AdBlocker, type AdblockSettings, type AdblockTuning, DEFAULT_TUNING } from "./types.js";

/** One configured list and what is known of it. */
interface ListState {
  readonly source: ListSource;
  /** The list as last read or downloaded. */
  text?: string;
  /** File: modification time of `text`. Address: when `text` was downloaded. */
  stamp?: number;
  /** After a failure: no new attempt before this time (ms since the epoch). */
  retryAt: number;
}

/** What reading or downloading one list gave. */
interface Outcome {
  changed: boolean;
  error?: string;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The renderer's filter lists: loaded on first use (cache first), refreshed in the background,
 * shared by every render. `blocker()` is undefined when no list could be loaded.
 *
 * Files are read as they are and read again when their modification time changes. Addresses
 * are downloaded once and cached under `cacheDir` (one file per address); a copy older than
 * `refreshSeconds` is used at once and downloaded again in the background, one list at a time.
 * A failed download keeps the old copy. When nothing at all can be loaded, the next attempt
 * waits `retryMs` (one warning per attempt, never one per render).
 */
export class AdblockLists {
  private readonly tuning: AdblockTuning;
  private readonly states: ListState[];
  private current?: { blocker: FilterBlocker; fingerprint: string };
  private loading?: Promise<AdBlocker | undefined>;
  private refreshing?: Promise<void>;
  /** Nothing could be loaded: no new attempt before this time. */
  private failedUntil = 0;
  /** No check for changed files and stale downloads before this time. */
  private nextCheck = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly aborter = new AbortController();

  constructor(
    readonly settings: AdblockSettings,
    readonly cacheDir: string,
    readonly logger: Logger,
    tuning: Partial<AdblockTuning> = {},
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    this.states = settings.lists.map((entry) => ({ source: parseSource(entry, cacheDir), retryAt: 0 }));
  }

  private get refreshMs(): number {
    return Math.max(1, this.settings.refreshSeconds) * 1000;
  }

  private warn(text: string, fields: Record<string, unknown>): void {
    if (!this.closed) this.logger.warn(text, fields);
  }

  /** The loaded filter engine; the first call loads the lists, concurrent calls share that load. */
  async blocker(): Promise<AdBlocker | undefined> {
    if (this.closed) return undefined;
    if (this.current) {
      this.checkSoon();
      return this.current.blocker;
    }
    if (Date.now() < this.failedUntil) return undefined;
    this.loading ??= this.load()
      .catch((error: unknown) => this.fail([{ list: "(all)", error: message(error) }]))
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** Stops the refresh timer, aborts downloads and parsing in progress, and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.aborter.abort();
    await Promise.allSettled([this.loading, this.refreshing]);
  }

  private async load(): Promise<AdBlocker | undefined> {
    await removeStaleTemps(this.cacheDir);
    const outcomes = await Promise.all(this.states.map((state) => this.loadFirst(state)));
    const failures = this.states.flatMap((state, i) => {
      const error = outcomes[i]?.error;
      return error ? [{ list: state.source.label, error }] : [];
    });
    if (this.closed) return undefined;
    const retryInSeconds = Math.round(this.tuning.retryMs / 1000);
    if (this.states.every((state) => state.text === undefined)) return this.fail(failures);
    for (const failure of failures) {
      this.warn("adblock: a filter list could not be loaded; the other lists are used", { ...failure, retryInSeconds });
    }
    try {
      await this.rebuild();
    } catch (error) {
      if (this.closed) return undefined;
      return this.fail([{ list: "(all)", error: `building the filter engine failed: ${message(error)}` }]);
    }
    this.schedule();
    this.checkSoon();
    return this.current?.blocker;
  }

  private fail(failures: { list: string; error: string }[]): undefined {
    this.failedUntil = Date.now() + this.tuning.retryMs;
    this.warn(
      this.states.length === 0
        ? "adblock: no filter list is configured; block_ads is refused"
        : "adblock: no filter list could be loaded; block_ads renders fail until a later attempt succeeds",
      { failures, retryInSeconds: Math.round(this.tuning.retryMs / 1000) },
    );
    return undefined;
  }

  /** First load of a list: a file is read; an address comes from the cache, else is downloaded. */
  private async loadFirst(state: ListState): Promise<Outcome> {
    const { source } = state;
    if (source.kind === "invalid") {
      state.retryAt = Number.POSITIVE_INFINITY;
      return { changed: false, error: source.reason };
    }
    if (source.kind === "file") return this.readList(state, source.path);
    const cached = await readCachedList(source.cacheFile);
    if (cached) {
      state.text = cached.text;
      state.stamp = cached.fetchedAt;
      return { changed: true };
    }
    return this.download(state, source.url, source.cacheFile);
  }

  /** Reads a list file unless its modification time is the one already read. */
  private async readList(state: ListState, path: string): Promise<Outcome> {
    try {
      const info = await stat(path);
      if (state.text !== undefined && info.mtimeMs === state.stamp) return { changed: false };
      if (info.size > this.tuning.maxListBytes) throw new Error(`the file is larger than ${this.tuning.maxListBytes} bytes`);
      const text = await readFile(path, "utf8");
      const changed = text !== state.text;
      state.text = text;
      state.stamp = info.mtimeMs;
      state.retryAt = 0;
      return { changed };
    } catch (error) {
      state.retryAt = Date.now() + this.tuning.retryMs;
      const code = (error as NodeJS.ErrnoException).code;
      return { changed: false, error: code === "ENOENT" ? "no such file" : message(error) };
    }
  }

  /** Downloads a list and caches it; on failure the copy in memory (if any) stays. */
  private async download(state: ListState, url: string, cacheFile: string): Promise<Outcome> {
    const fetchedAt = Date.now();
    let text: string;
    try {
      text = await downloadList(url, {
        timeoutMs: this.tuning.downloadTimeoutMs,
        maxBytes: this.tuning.maxListBytes,
        signal: this.aborter.signal,
      });
    } catch (error) {
      state.retryAt = Date.now() + this.tuning.retryMs;
      return { changed: false, error: message(error) };
    }
    const changed = text !== state.text;
    state.text = text;
    state.stamp = fetchedAt;
    state.retryAt = 0;
    await writeCachedList(cacheFile, { text, fetchedAt }).catch((error: unknown) =>
      this.warn("adblock: caching a downloaded filter list failed", { list: state.source.label, error: message(error) }),
    );
    return { changed };
  }

  /** Starts a background check (at most one at a time, at most one per `checkIntervalMs`). */
  private checkSoon(): void {
    if (this.closed || this.refreshing || Date.now() < this.nextCheck) return;
    this.nextCheck = Date.now() + this.tuning.checkIntervalMs;
    this.refreshing = this.refresh()
      .catch((error: unknown) => this.warn("adblock: refreshing the filter lists failed", { error: message(error) }))
      .finally(() => {
        this.refreshing = undefined;
        this.schedule();
      });
  }

  /** Reads changed files and downloads stale or missing lists, one at a time; rebuilds on change. */
  private async refresh(): Promise<void> {
    let changed = false;
    for (const state of this.states) {
      const now = Date.now();
      if (this.closed) return;
      if (now < state.retryAt) continue;
      const { source } = state;
      const had = state.text !== undefined;
      let outcome: Outcome;
      if (source.kind === "file") {
        outcome = await this.readList(state, source.path);
      } else if (source.kind === "url") {
        const age = now - (state.stamp ?? 0);
        if (had && age >= 0 && age < this.refreshMs) continue;
        outcome = await this.download(state, source.url, source.cacheFile);
        if (!outcome.error)
          this.logger.debug("adblock: filter list downloaded", { list: source.label, changed: outcome.changed });
      } else {
        continue;
      }
      if (outcome.error) {
        this.warn(
          had
            ? "adblock: updating a filter list failed; its last copy stays in use"
            : "adblock: a filter list could not be loaded; the other lists are used",
          { list: source.label, error: outcome.error, retryInSeconds: Math.round(this.tuning.retryMs / 1000) },
        );
      }
      changed ||= outcome.changed;
    }
    if (changed && !this.closed) await this.rebuild();
  }

  /** Builds the engine from every loaded list, unless it is the one in use. */
  private async rebuild(): Promise<void> {
    const texts = this.states.flatMap((state) => (state.text === undefined ? [] : [state.text]));
    if (texts.length === 0) return;
    // The filter engine's library (~15 MB) is loaded with the first list, not by every process.
    const [{ buildEngine, fingerprint }, { FilterBlocker }] = await Promise.all([import("./build.js"), import("./blocker.js")]);
    const id = fingerprint(texts);
    if (this.current?.fingerprint === id) return;
    const started = performance.now();
    const built = await buildEngine(texts, id, this.cacheDir, this.aborter.signal, this.logger);
    if (this.closed) return;
    this.current = { blocker: new FilterBlocker(built.engine), fingerprint: id };
    this.logger.info("adblock: filter engine ready", {
      lists: texts.length,
      configured: this.states.length,
      fromCache: built.cached,
      ms: Math.round(performance.now() - started),
    });
  }

  /** Arms the timer for the next list due: a download to refresh, or a failed list to retry. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || !this.current) return;
    let due = Number.POSITIVE_INFINITY;
    for (const state of this.states) {
      if (state.text === undefined) due = Math.min(due, state.retryAt);
      else if (state.source.kind === "url") due = Math.min(due, Math.max(state.retryAt, (state.stamp ?? 0) + this.refreshMs));
    }
    if (!Number.isFinite(due)) return;
    const delay = Math.min(Math.max(due - Date.now(), this.tuning.checkIntervalMs), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.nextCheck = 0;
      this.checkSoon();
    }, delay);
    this.timer.unref();
  }
}
