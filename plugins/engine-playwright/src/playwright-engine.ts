import {
  type Engine,
  type EngineCapability,
  type EngineStats,
  findChromium,
  LOGGER,
  type Logger,
  type PageSession,
  type PageSettings,
  type PageTarget,
  RenderError,
  raceSignal,
  Semaphore,
} from "@renderkit/core";
import { inject, injectable } from "tsyringe";
import { BrowserHandle } from "./browser-handle.js";
import { checkTarget, loadPage } from "./load-page.js";
import { PLAYWRIGHT_OPTIONS, type PlaywrightOptions } from "./options.js";
import { PlaywrightSession } from "./playwright-session.js";
import { closeSpare, openSpare, profileKey, type SparePage } from "./spare-page.js";

/**
 * Engine on playwright-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog). One warm browser; every render gets a fresh browser context
 * behind its own egress proxy; crash → relaunch; recycled after `recycleAfter` renders.
 */
@injectable()
export class PlaywrightEngine implements Engine {
  readonly name = "playwright";
  readonly capabilities: ReadonlySet<EngineCapability> = new Set<EngineCapability>([
    "screenshot",
    "pdf",
    "content",
    "screencast",
  ]);
  private readonly slots: Semaphore;
  private current: BrowserHandle | undefined;
  private launching: Promise<BrowserHandle> | undefined;
  private readonly handles = new Set<BrowserHandle>();
  private launches = 0;
  private pages = 0;
  private readonly sessions = new Set<PlaywrightSession>();
  /** The next render's context and page, opened while the current one runs. */
  private spare: { handle: BrowserHandle; ready: Promise<SparePage | undefined> } | undefined;
  private closed = false;

  constructor(
    @inject(PLAYWRIGHT_OPTIONS) private readonly options: PlaywrightOptions,
    @inject(LOGGER) private readonly logger: Logger,
  ) {
    this.slots = new Semaphore(options.concurrency ?? 4);
  }

  async start(): Promise<void> {
    await this.browser();
  }

  stats(): EngineStats {
    return { browsers: [...this.handles].filter((h) => h.process.alive).length, pages: this.pages, launches: this.launches };
  }

  /** Process ids of the live browsers (tests and diagnostics). */
  browserPids(): number[] {
    return [...this.handles].filter((h) => h.process.alive).map((h) => h.process.pid);
  }

  private async browser(): Promise<BrowserHandle> {
    if (this.closed) throw new RenderError("ServiceUnavailable", "The playwright engine is closed");
    const current = this.current;
    const recycle = current && current.renders >= (this.options.recycleAfter ?? 200);
    if (current?.usable && !recycle) return current;
    if (current) this.retire(current);
    this.launching ??= (async () => {
      try {
        const executable = findChromium(this.options.executablePath);
        const handle = await BrowserHandle.launch(executable, this.options.args ?? [], this.logger);
        this.launches++;
        this.handles.add(handle);
        this.current = handle;
        if (this.closed) await this.retire(handle);
        return handle;
      } finally {
        this.launching = undefined;
      }
    })();
    return this.launching;
  }

  /** Stops new sessions on `handle`; closes it now if idle, else when its last session closes. */
  private retire(handle: BrowserHandle): Promise<void> {
    handle.retired = true;
    if (this.spare?.handle === handle) void this.dropSpare();
    if (this.current === handle) this.current = undefined;
    if (handle.active > 0 && handle.process.alive) return Promise.resolve();
    this.handles.delete(handle);
    return handle.close();
  }

  async open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession> {
    await checkTarget(target, settings);
    const release = await this.slots.acquire(signal);
    let handle: BrowserHandle | undefined;
    let opened = false;
    const done = () => {
      release();
      if (!handle) return;
      handle.active--;
      this.pages--;
      if (handle.retired) void this.retire(handle);
    };
    try {
      handle = await raceSignal(this.browser(), signal);
      handle.renders++;
      handle.active++;
      this.pages++;
      const spare = await this.takeSpare(handle, settings);
      this.refillSpare(handle, settings);
      const loaded = await loadPage(handle.browser, target, settings, signal, spare);
      opened = true;
      const session: PlaywrightSession = new PlaywrightSession(loaded, settings.timeoutMs, () => {
        this.sessions.delete(session);
        done();
      });
      this.sessions.add(session);
      return session;
    } catch (error) {
      if (!opened) {
        if (handle) done();
        else release();
      }
      throw error;
    }
  }

  /** The spare, when one was made on `handle` for renders shaped like `settings`. */
  private async takeSpare(handle: BrowserHandle, settings: PageSettings): Promise<SparePage | undefined> {
    const current = this.spare;
    this.spare = undefined;
    if (!current) return undefined;
    const spare = await current.ready;
    if (spare && current.handle === handle && handle.usable && spare.key === profileKey(settings)) return spare;
    void closeSpare(spare);
    return undefined;
  }

  /** Starts opening the next render's page in the background (one at a time). */
  private refillSpare(handle: BrowserHandle, settings: PageSettings): void {
    if (this.options.prewarm !== true || this.closed || this.spare || !handle.usable) return;
    this.spare = { handle, ready: openSpare(handle.browser, settings) };
  }

  private async dropSpare(): Promise<void> {
    const current = this.spare;
    this.spare = undefined;
    if (current) await closeSpare(await current.ready);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.dropSpare();
    await this.launching?.catch(() => undefined);
    await Promise.all([...this.sessions].map((s) => s.close()));
    await Promise.all([...this.handles].map((h) => h.close()));
    this.handles.clear();
    this.current = undefined;
  }
}
