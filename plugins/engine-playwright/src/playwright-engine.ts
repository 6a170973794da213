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
import { BrowserPool, openLeased, type PooledBrowser } from "@renderkit/core/chromium";
import type { Browser } from "playwright-core";
import { inject, injectable } from "tsyringe";
import { connectPlaywright } from "./connection.js";
import { loadPage } from "./load-page.js";
import { PLAYWRIGHT_OPTIONS, type PlaywrightOptions } from "./options.js";
import { PlaywrightSession } from "./playwright-session.js";
import { closeSpare, openSpare, profileKey, type SparePage } from "./spare-page.js";

/**
 * Engine on playwright-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog). One warm browser; every render gets a fresh browser context
 * behind its own egress proxy; crash → relaunch; recycled after `recycleAfter` renders (all in
 * core's `BrowserPool`). With `prewarm`, the next render's context and page open in advance.
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
      },
    });
  }

  async start(): Promise<void> {
    await this.pool.browser();
  }

  stats(): EngineStats {
    return this.pool.stats();
  }

  /** Process ids of the live browsers (tests and diagnostics). */
  browserPids(): number[] {
    return this.pool.pids();
  }

  open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession> {
    return openLeased(this.pool, target, settings, signal, async (lease) => {
      const spare = await this.takeSpare(lease.handle, settings);
      this.refillSpare(lease.handle, settings);
      const loaded = await loadPage(lease.browser, target, settings, signal, spare);
      return new PlaywrightSession(loaded, settings.timeoutMs, lease.release);
    });
  }

  /** The spare, when one was made on `handle` for renders shaped like `settings`. */
  private async takeSpare(handle: PooledBrowser<Browser>, settings: PageSettings): Promise<SparePage | undefined> {
    const current = this.spare;
    this.spare = undefined;
    if (!current) return undefined;
    const spare = await current.ready;
    if (spare && current.handle === handle && handle.usable && spare.key === profileKey(settings)) return spare;
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
    await this.pool.close();
  }
}
