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
import { PUPPETEER_OPTIONS, type PuppeteerOptions } from "./options.js";
import { PuppeteerSession } from "./puppeteer-session.js";

/**
 * Engine on puppeteer-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog); Puppeteer only connects over the DevTools WebSocket. One warm
 * browser; every render gets a fresh browser context behind its own egress proxy; crash →
 * relaunch; recycled after `recycleAfter` renders.
 */
@injectable()
export class PuppeteerEngine implements Engine {
  readonly name = "puppeteer";
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
  private readonly sessions = new Set<PuppeteerSession>();
  private closed = false;

  constructor(
    @inject(PUPPETEER_OPTIONS) private readonly options: PuppeteerOptions,
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
    if (this.closed) throw new RenderError("ServiceUnavailable", "The puppeteer engine is closed");
    const current = this.current;
    const recycle = current && current.renders >= (this.options.recycleAfter ?? 200);
    if (current?.usable && !recycle) return current;
    if (current) void this.retire(current);
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
      const loaded = await loadPage(handle.browser, target, settings, signal);
      opened = true;
      const session: PuppeteerSession = new PuppeteerSession(loaded, settings.timeoutMs, () => {
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

  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    await Promise.all([...this.sessions].map((s) => s.close()));
    await Promise.all([...this.handles].map((h) => h.close()));
    this.handles.clear();
    this.current = undefined;
  }
}
