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
import { BrowserPool, openLeased, type PageShelf, type PooledBrowser, pageShelf, reuseKey } from "@renderkit/core/chromium";
import type { Browser } from "puppeteer-core";
import { inject, injectable } from "tsyringe";
import { connectPuppeteer } from "./connection.js";
import { type LoadedPage, loadPage, type ReusedPage } from "./load-page.js";
import { PUPPETEER_OPTIONS, type PuppeteerOptions } from "./options.js";
import { PuppeteerSession } from "./puppeteer-session.js";
import { discardPage, resetPage, shelfEntry } from "./reuse.js";

/**
 * Engine on puppeteer-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog); Puppeteer only connects over the DevTools WebSocket. One warm
 * browser; a render gets a browser context behind its own egress proxy: a reset page of an
 * earlier render of its project when its settings allow (`reuseKey`, on by default), else a fresh
 * one; crash → relaunch; recycled after `recycleAfter` renders (all in core's `BrowserPool`).
 */
@injectable()
export class PuppeteerEngine implements Engine {
  readonly name = "puppeteer";
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
  private readonly shelf: PageShelf<ReusedPage> | undefined;

  constructor(@inject(PUPPETEER_OPTIONS) options: PuppeteerOptions, @inject(LOGGER) logger: Logger) {
    this.pool = new BrowserPool({
      ...options,
      name: this.name,
      connect: connectPuppeteer,
      logger,
      onRetire: (handle) => void this.shelf?.drop(handle),
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
      // Loaded (or failed): a reset deferred for this load starts now (`PageShelfOptions.deferReset`).
      const loaded = await loadPage(lease.browser, target, settings, signal, shelved?.entry).finally(() => this.shelf?.loaded());
      const uses = (shelved?.uses ?? 0) + 1;
      const recycle = key === undefined ? undefined : () => this.shelve(key, lease.handle, loaded, uses);
      return new PuppeteerSession({ ...loaded, recycle }, settings.timeoutMs, lease.release);
    });
  }

  /** Resets a page that served `uses` renders and keeps it for the next render of `key` (or closes it). */
  private shelve(key: string, handle: PooledBrowser<Browser>, loaded: LoadedPage, uses: number): Promise<void> {
    const entry = shelfEntry(loaded);
    if (!this.shelf) return discardPage(entry);
    // A browser retired before or during the reset (crash, recycle) takes its pages with it.
    return this.shelf.put(key, handle, entry, uses, async () => handle.usable && (await resetPage(uses, entry)) && handle.usable);
  }

  async close(): Promise<void> {
    await this.shelf?.close();
    await this.pool.close();
  }
}
