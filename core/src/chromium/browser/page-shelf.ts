import { availableParallelism } from "node:os";
import { type PageSettings, type PageTarget, withTimeout } from "../../index.js";
import { pageHeaders } from "../network/authorization.js";

/**
 * The settings a browser context or a page's emulation fixes when it is made (the rest is said
 * again for every render): pages made with equal keys suit the same renders.
 */
export function fixedSettingsKey(s: PageSettings): string {
  return JSON.stringify([
    s.deviceScaleFactor,
    s.userAgent,
    s.locale,
    s.timezone,
    s.colorScheme,
    s.reducedMotion,
    s.javaScriptEnabled,
  ]);
}

/**
 * Page reuse. A render whose settings leave nothing on the page that outlives it (no request
 * filter, init scripts, geolocation, caller headers, upstream proxy or resource log) may hand its
 * browser context and page to the next render with the same key once it ended and the page was
 * reset (`resetForReuse` in page-reset.ts: the render's document replaced by an empty one, cookies,
 * the storage of every origin it reached, HTTP cache, permission answers, history and
 * `window.name` cleared, popups closed). The key starts with the isolation key (the project):
 * renders of different projects never share a context. A reused page keeps its renderer process,
 * which saves most of a simple render (a new context's first page costs a new process and ~150 ms).
 */
export function reuseKey(target: PageTarget, settings: PageSettings): string | undefined {
  if (
    settings.requestFilter ||
    settings.initScripts?.length ||
    settings.geolocation ||
    settings.authorization ||
    settings.proxy ||
    settings.recordResources ||
    pageHeaders(target, settings).target
  ) {
    return undefined;
  }
  return JSON.stringify([settings.isolationKey ?? "", fixedSettingsKey(settings)]);
}

/** Renders one reused page serves before it is closed. */
const MAX_USES = 100;
/** An idle page is closed after this long. */
const IDLE_MS = 60_000;

/**
 * The engine's shelf for `options` (undefined when reuse is off), closing pages with `discard`.
 * `busy` counts the engine's pages in use: while they and the resets under way leave a CPU core
 * each, and the pages at work and idle are at most one more than `maxIdle`, a render opens a page
 * rather than wait for a reset (`PageShelfOptions.overlap`). With no page in use, a reset due waits
 * for the engine's next page to load (`PageShelfOptions.deferReset`; the engine calls `loaded()`).
 */
export function pageShelf<E>(
  options: { reusePages?: number | false; concurrency?: number },
  discard: (entry: E) => Promise<void>,
  busy: () => number,
): PageShelf<E> | undefined {
  const maxIdle = options.reusePages === false ? 0 : (options.reusePages ?? options.concurrency ?? 4);
  if (maxIdle <= 0) return undefined;
  const cores = availableParallelism();
  // A core for each page at work, and one page more than the shelf keeps at most: the overlap
  // costs one renderer process, not one per key.
  const withinOneMore = (resetting: number, idle: number) => busy() + resetting + idle <= maxIdle + 1;
  const overlap = (resetting: number, idle: number) => busy() + resetting <= cores && withinOneMore(resetting, idle);
  // Nothing else at work: the next render (of one client at a time) loads first, then this reset.
  const deferReset = () => busy() === 0;
  return new PageShelf({ maxIdle, maxUses: MAX_USES, idleMs: IDLE_MS, discard, overlap, keepOneMore: withinOneMore, deferReset });
}

/** A page on the shelf: what the engine keeps of it, how often it rendered, and its browser. */
interface Shelved<E> {
  key: string;
  entry: E;
  uses: number;
  owner: object;
  timer: NodeJS.Timeout;
}

export interface PageShelfOptions<E> {
  /** Pages kept idle at most (the oldest goes first). */
  maxIdle: number;
  /** Renders one page serves before it is closed (bounds what a renderer process accumulates). */
  maxUses: number;
  /** An idle page is closed after this long. */
  idleMs: number;
  /** Closes a page that leaves the shelf without being taken. */
  discard(entry: E): Promise<void>;
  /**
   * Whether a render that finds no idle page of its key, while `resetting` resets are under way
   * and `idle` pages (of any key) wait on the shelf, opens a page of its own rather than wait for
   * one (default: it waits).
   */
  overlap?(resetting: number, idle: number): boolean;
  /**
   * Whether one idle page more than `maxIdle` may stay, while `resetting` resets are under way and
   * `idle` pages wait (this one included). The page `overlap` opened would otherwise be closed as
   * soon as both pages of a key wait at once (a pause between renders), and opened again at the
   * next overlap: a new context each time (default: it may not).
   */
  keepOneMore?(resetting: number, idle: number): boolean;
  /**
   * Whether a reset due now waits until the engine's next page has loaded (`loaded()`), a render
   * of its key waits for it, or `deferMs` pass, whichever comes first (default: it starts at
   * once). Asked once the render that used the page has let it go.
   */
  deferReset?(): boolean;
  /** How long a deferred reset waits at most (default `DEFER_MS`). */
  deferMs?: number;
}

/**
 * How long a deferred reset waits at most. One client rendering one page at a time (the pattern
 * that defers) sends its next render within a few ms; a reset starting then would share the CPU
 * with that render's navigation (about 24 ms instead of 15-17 measured at c = 1).
 */
const DEFER_MS = 60;

/** Times a render waits for a reset under way before it opens a page of its own. */
const MAX_WAITS = 3;

/**
 * Idle reset pages, by reuse key, each tied to the browser (`owner`) it lives in. `take` gives the
 * most recently shelved page of a key. A page being reset is on its way back: a render of its key
 * finding none idle waits for the reset (~25 ms) rather than open a context (~150 ms once, and a
 * renderer process), unless `overlap` says the machine has a core for the render and each reset:
 * then the key gets a second page, and its two pages take turns (one renders while the other
 * resets). On a busy machine the two would compete for the same CPU (docs/performance.md). A
 * reset that falls due while nothing else renders may wait for the next render's page to load
 * (`deferReset`, `loaded()`), so the two do not share the CPU either.
 */
export class PageShelf<E> {
  private readonly idle: Shelved<E>[] = [];
  /** Resets under way, by key: a page that may land on the shelf any moment. */
  private readonly pending = new Map<string, Set<Promise<unknown>>>();
  /** Deferred resets, each with the call that starts it now; by key. */
  private readonly deferred = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(private readonly options: PageShelfOptions<E>) {}

  /**
   * An idle page of `key` in `owner` for a render, with the number of renders it served; or
   * undefined: the render opens a page itself.
   */
  async take(key: string, owner: object): Promise<{ entry: E; uses: number } | undefined> {
    for (let waits = 0; ; waits++) {
      const found = this.pick(key, owner);
      const resetting = this.pending.get(key);
      if (found || !resetting?.size || waits >= MAX_WAITS || this.options.overlap?.(this.resetting(), this.size())) return found;
      // Wanted now: a deferred reset of this key starts at once.
      this.startDeferred(this.deferred.get(key));
      await withTimeout(Promise.race(resetting), 2_000).catch(() => undefined);
    }
  }

  private pick(key: string, owner: object): { entry: E; uses: number } | undefined {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const item = this.idle[i];
      if (item?.key !== key || item.owner !== owner) continue;
      this.idle.splice(i, 1);
      clearTimeout(item.timer);
      return { entry: item.entry, uses: item.uses };
    }
    return undefined;
  }

  /**
   * Shelves a page after its render (`uses` renders so far) once `reset` resolves true; discards
   * it when the reset fails or says no, when it served `maxUses`, or when the shelf is closed.
   * Resolves when done.
   */
  async put(key: string, owner: object, entry: E, uses: number, reset: () => Promise<boolean>): Promise<void> {
    if (this.closed || uses >= this.options.maxUses) return this.discard(entry);
    const resetting = (this.options.deferReset ? this.due(key).then(reset) : reset()).catch(() => false);
    const waiting = this.pending.get(key) ?? new Set();
    this.pending.set(key, waiting);
    waiting.add(resetting);
    let ok: boolean;
    try {
      ok = await resetting;
    } finally {
      waiting.delete(resetting);
      if (waiting.size === 0) this.pending.delete(key);
    }
    if (!ok || this.closed) return this.discard(entry);
    const timer = setTimeout(() => this.evict((item) => item.entry === entry), this.options.idleMs);
    timer.unref();
    this.idle.push({ key, entry, uses, owner, timer });
    const { maxIdle, keepOneMore } = this.options;
    const over = () =>
      this.idle.length > maxIdle + 1 || (this.idle.length > maxIdle && !keepOneMore?.(this.resetting(), this.idle.length));
    while (over()) void this.evictAt(0);
  }

  /** The engine's page of a render has loaded (or failed to): deferred resets start now. */
  loaded(): void {
    for (const starts of this.deferred.values()) this.startDeferred(starts);
  }

  /**
   * Resolves when a reset of `key` due now may start (`PageShelfOptions.deferReset`). Its start is
   * known to `take` and `loaded` at once; whether it waits at all is asked a microtask on, when
   * the render has let the page go (and the engine counts it idle).
   */
  private due(key: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const starts = this.deferred.get(key) ?? new Set();
      this.deferred.set(key, starts);
      let timer: NodeJS.Timeout | undefined;
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        starts.delete(start);
        if (starts.size === 0 && this.deferred.get(key) === starts) this.deferred.delete(key);
        resolve();
      };
      starts.add(start);
      queueMicrotask(() => {
        if (started) return;
        if (this.closed || !this.options.deferReset?.()) return start();
        timer = setTimeout(start, this.options.deferMs ?? DEFER_MS);
        timer.unref();
      });
    });
  }

  private startDeferred(starts: Set<() => void> | undefined): void {
    for (const start of [...(starts ?? [])]) start();
  }

  /** Closes the idle pages of `owner` (a browser that is retired), or every idle page. */
  drop(owner?: object): Promise<void> {
    return this.evict((item) => owner === undefined || item.owner === owner);
  }

  /** Resets under way now, of every key. */
  private resetting(): number {
    let count = 0;
    for (const set of this.pending.values()) count += set.size;
    return count;
  }

  /** Idle pages now. */
  size(): number {
    return this.idle.length;
  }

  /** Closes every idle page, and each page whose reset ends later. */
  async close(): Promise<void> {
    this.closed = true;
    this.loaded();
    await Promise.all([...this.pending.values()].flatMap((set) => [...set]));
    await this.drop();
  }

  private discard(entry: E): Promise<void> {
    return this.options.discard(entry).catch(() => undefined);
  }

  private async evict(match: (item: Shelved<E>) => boolean): Promise<void> {
    const gone: Promise<void>[] = [];
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const item = this.idle[i];
      if (item && match(item)) gone.push(this.evictAt(i));
    }
    await Promise.all(gone);
  }

  private evictAt(index: number): Promise<void> {
    const [item] = this.idle.splice(index, 1);
    if (!item) return Promise.resolve();
    clearTimeout(item.timer);
    return this.discard(item.entry);
  }
}
