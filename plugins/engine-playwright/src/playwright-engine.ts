import {
  type Engine,
  type EngineCapability,
  type EngineStats,
  LOGGER,
  type Logger,
  type PageSession,
  type PageSettings,
  type PageTarget,
} from "@renderkit/core";
import {
  BrowserPool,
  fixedSettingsKey,
  openLeased,
  type PageShelf,
  type PooledBrowser,
  pageShelf,
  reuseKey,
} from "@renderkit/core/chromium";
import type { Browser } from "playwright-core";
import { inject, injectable } from "tsyringe";
import { connectPlaywright } from "./connection.js";
import { type LoadedPage, loadPage, type ReadyPage } from "./load-page.js";
import { PLAYWRIGHT_OPTIONS, type PlaywrightOptions } from "./options.js";
import { PlaywrightSession } from "./playwright-session.js";
import { discardPage, resetPage, shelfEntry } from "./reuse.js";
import { closeSpare, openSpare, type SparePage } from "./spare-page.js";

/**
 * Engine on playwright-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog). One warm browser; a render gets a browser context behind its own
 * egress proxy: a reset page of an earlier render of its project when its settings allow
 * (`reuseKey`, on by default), else a fresh one; crash → relaunch; recycled after `recycleAfter`
 * renders (all in core's `BrowserPool`). With `prewarm`, the next render's context and page open
 * in advance.
 */
@injectable()
export class PlaywrightEngine implements Engine {
  readonly name = "playwright";
  readonly capabilities: ReadonlySet<EngineCapability> = new Set<EngineCapability>([
    "screenshot",
    "pdf",
    "content",
    "screencast",
    "snapshot",
  ]);
  private readonly pool: BrowserPool<Browser>;
  /** Reset pages waiting for the next render of their project (undefined: reuse is off). */
  /** Renders given a reused page so far. */
  private reused = 0;
  private readonly shelf: PageShelf<ReadyPage> | undefined;
  /** The next render's context and page, opened while the current one runs. */
  private spare: { handle: PooledBrowser<Browser>; ready: Promise<SparePage | undefined> } | undefined;
  private closing = false;

  constructor(
    @inject(PLAYWRIGHT_OPTIONS) private readonly options: PlaywrightOptions,
    @inject(LOGGER) logger: Logger,
  ) {
    this.pool = new BrowserPool({
      ...options,
      name: this.name,
      connect: connectPlaywright,
      logger,
      onRetire: (handle) => {
        if (this.spare?.handle === handle) void this.dropSpare();
        void this.shelf?.drop(handle);
      },
    });
    this.shelf = pageShelf(options, discardPage, () => this.pool.stats().pages);
  }

  async start(): Promise<void> {
    await this.pool.browser();
  }

  stats(): EngineStats {
    return { ...this.pool.stats(), idlePages: this.shelf?.size() ?? 0, reusedPages: this.reused };
  }

  /** Process ids of the live browsers (tests and diagnostics). */
  browserPids(): number[] {
    return this.pool.pids();
  }

  open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession> {
    return openLeased(this.pool, target, settings, signal, async (lease) => {
      const key = this.shelf && reuseKey(target, settings);
      const shelved = key === undefined ? undefined : await this.shelf?.take(key, lease.handle);
      if (shelved) this.reused++;
      const ready = shelved ? { ...shelved.entry, reused: true } : await this.takeSpare(lease.handle, settings);
      if (!shelved) this.refillSpare(lease.handle, settings);
      // Loaded (or failed): a reset deferred for this load starts now (`PageShelfOptions.deferReset`).
      const loaded = await loadPage(lease.browser, target, settings, signal, ready, key !== undefined).finally(() =>
        this.shelf?.loaded(),
      );
      const uses = (shelved?.uses ?? 0) + 1;
      const recycle = key === undefined ? undefined : () => this.shelve(key, lease.handle, loaded, uses);
      return new PlaywrightSession({ ...loaded, recycle }, settings.timeoutMs, lease.release, settings.deviceScaleFactor);
    });
  }

  /** Resets a page that served `uses` renders and keeps it for the next render of `key` (or closes it). */
  private shelve(key: string, handle: PooledBrowser<Browser>, loaded: LoadedPage, uses: number): Promise<void> {
    const entry = shelfEntry(loaded);
    if (!this.shelf) return discardPage(entry);
    // A browser retired before or during the reset (crash, recycle) takes its pages with it.
    return this.shelf.put(key, handle, entry, uses, async () => handle.usable && (await resetPage(uses, entry)) && handle.usable);
  }

  /** The spare, when one was made on `handle` for renders shaped like `settings`. */
  private async takeSpare(handle: PooledBrowser<Browser>, settings: PageSettings): Promise<SparePage | undefined> {
    const current = this.spare;
    this.spare = undefined;
    if (!current) return undefined;
    const spare = await current.ready;
    if (spare && current.handle === handle && handle.usable && spare.key === fixedSettingsKey(settings)) return spare;
    void closeSpare(spare);
    return undefined;
  }

  /** Starts opening the next render's page in the background (one at a time). */
  private refillSpare(handle: PooledBrowser<Browser>, settings: PageSettings): void {
    if (this.options.prewarm !== true || this.closing || this.spare || !handle.usable) return;
    this.spare = { handle, ready: openSpare(handle.browser, settings) };
  }

  private async dropSpare(): Promise<void> {
    const current = this.spare;
    this.spare = undefined;
    if (current) await closeSpare(await current.ready);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.dropSpare();
    await this.shelf?.close();
    await this.pool.close();
  }
}
