import { Semaphore } from "../../exports/internal.js";
import { type EngineStats, type Logger, RenderError, raceSignal } from "../../index.js";
import { ChromiumProcess } from "./chromium-process.js";
import { findChromium } from "./find-chromium.js";

/** A driver library's connection to a launched Chromium (Playwright's or Puppeteer's `Browser`). */
export interface BrowserConnection<B> {
  readonly browser: B;
  connected(): boolean;
  /** Called once when the driver loses the browser. */
  onDisconnected(listener: () => void): void;
  /** Ends the connection (gracefully where the driver needs it); the pool kills the process after. */
  close(): Promise<void>;
}

/** The settings every Chromium engine takes; all optional. */
export interface BrowserEngineOptions {
  /** Chromium to launch; default: `RENDERKIT_CHROMIUM`, then Debian's Chromium, then a managed one. */
  executablePath?: string;
  /** Extra Chromium flags after renderkit's. */
  args?: readonly string[];
  /** Pages open at once in this engine. Default 4. */
  concurrency?: number;
  /** Relaunch the browser after this many renders (memory hygiene). Default 200. */
  recycleAfter?: number;
  /**
   * Reset pages kept for the next render of the same project and settings (`reuseKey`); 0 or
   * false: every render gets a new context. Default: `concurrency`.
   */
  reusePages?: number | false;
}

export interface BrowserPoolOptions<B> extends BrowserEngineOptions {
  /** The engine's name, for errors and logs. */
  name: string;
  /** Attaches the driver to a launched browser's DevTools endpoint. */
  connect(wsEndpoint: string): Promise<BrowserConnection<B>>;
  /** Told when a browser stops taking new sessions (crash, recycle, close). */
  onRetire?(browser: PooledBrowser<B>): void;
  logger: Logger;
}

/** One launched Chromium (its own process group and profile) and the driver's connection to it. */
export class PooledBrowser<B> {
  /** Sessions opened on this browser so far. */
  renders = 0;
  /** Sessions open right now. */
  active = 0;
  /** Set when the browser crashed or is being recycled: no new sessions. */
  retired = false;
  private closing: Promise<void> | undefined;
  private closeCalled = false;

  constructor(
    readonly connection: BrowserConnection<B>,
    readonly process: ChromiumProcess,
  ) {}

  get browser(): B {
    return this.connection.browser;
  }

  get usable(): boolean {
    return !this.retired && this.process.alive && this.connection.connected();
  }

  /** True once `close()` was called: the connection ending after that is no crash. */
  get closingStarted(): boolean {
    return this.closeCalled;
  }

  /** Ends the connection (at most 2 s) and kills the process group; idempotent. */
  close(): Promise<void> {
    this.retired = true;
    // Set before the connection closes: a driver may report the disconnect synchronously.
    this.closeCalled = true;
    this.closing ??= (async () => {
      await Promise.race([this.connection.close().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000).unref())]);
      await this.process.kill();
    })();
    return this.closing;
  }
}

/** A slot on a browser, held by one render from page creation until its session closes. */
export interface BrowserLease<B> {
  readonly handle: PooledBrowser<B>;
  readonly browser: B;
  /** Ties a session to the lease: closing the pool closes it. */
  hold(session: { close(): Promise<void> }): void;
  /** Gives the slot back; idempotent. */
  release(): void;
}

/**
 * The browser lifecycle both engines share: one warm Chromium, a concurrency limit, relaunch after
 * a crash, recycling after `recycleAfter` sessions (the old browser closes when its last session
 * does), and a `close()` that ends every session, browser, process group and profile.
 */
export class BrowserPool<B> {
  private readonly slots: Semaphore;
  private current: PooledBrowser<B> | undefined;
  private launching: Promise<PooledBrowser<B>> | undefined;
  private readonly handles = new Set<PooledBrowser<B>>();
  private readonly sessions = new Set<{ close(): Promise<void> }>();
  /** Browsers retired and closing: `close()` waits for them too. */
  private readonly closings = new Set<Promise<void>>();
  private launches = 0;
  private pages = 0;
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions<B>) {
    this.slots = new Semaphore(options.concurrency ?? 4);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  stats(): EngineStats {
    return { browsers: this.pids().length, pages: this.pages, launches: this.launches };
  }

  /** Process ids of the live browsers. */
  pids(): number[] {
    return [...this.handles].filter((h) => h.process.alive).map((h) => h.process.pid);
  }

  /** The browser new sessions go to: launched on first use, after a crash and when due for recycling. */
  async browser(): Promise<PooledBrowser<B>> {
    if (this.closed) throw new RenderError("ServiceUnavailable", `The ${this.options.name} engine is closed`);
    const current = this.current;
    const recycle = current && current.renders >= (this.options.recycleAfter ?? 200);
    if (current?.usable && !recycle) return current;
    if (current) void this.retire(current);
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<PooledBrowser<B>> {
    const executablePath = findChromium(this.options.executablePath);
    const proc = await ChromiumProcess.launch({ executablePath, args: this.options.args ?? [], logger: this.options.logger });
    let handle: PooledBrowser<B>;
    try {
      handle = new PooledBrowser(await this.options.connect(proc.wsEndpoint), proc);
    } catch (error) {
      await proc.kill();
      throw error;
    }
    let gone = false;
    // The driver's disconnect and the process exit both report it; act on the first.
    const onGone = () => {
      if (gone) return;
      gone = true;
      if (!handle.closingStarted) this.options.logger.warn("browser went away; the next render relaunches it", { pid: proc.pid });
      handle.retired = true;
      this.options.onRetire?.(handle);
    };
    handle.connection.onDisconnected(onGone);
    void proc.exited.then(onGone);
    this.launches++;
    this.handles.add(handle);
    this.current = handle;
    if (this.closed) await this.retire(handle);
    return handle;
  }

  /** Stops new sessions on `handle`; closes it now if idle, else when its last session closes. */
  private retire(handle: PooledBrowser<B>): Promise<void> {
    handle.retired = true;
    if (this.current === handle) this.current = undefined;
    this.options.onRetire?.(handle);
    if (handle.active > 0 && handle.process.alive) return Promise.resolve();
    this.handles.delete(handle);
    const closing = handle.close();
    this.closings.add(closing);
    void closing.finally(() => this.closings.delete(closing));
    return closing;
  }

  /** Waits for a slot and a usable browser; the caller releases the lease when its session ends. */
  async lease(signal: AbortSignal): Promise<BrowserLease<B>> {
    const release = await this.slots.acquire(signal);
    let handle: PooledBrowser<B>;
    try {
      handle = await raceSignal(this.browser(), signal);
    } catch (error) {
      release();
      throw error;
    }
    handle.renders++;
    handle.active++;
    this.pages++;
    let held: { close(): Promise<void> } | undefined;
    let released = false;
    return {
      handle,
      browser: handle.browser,
      hold: (session) => {
        held = session;
        this.sessions.add(session);
      },
      release: () => {
        if (released) return;
        released = true;
        if (held) this.sessions.delete(held);
        release();
        handle.active--;
        this.pages--;
        if (handle.retired) void this.retire(handle);
      },
    };
  }

  /** Closes every held session, then every browser (process group and profile). */
  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    await Promise.all([...this.sessions].map((s) => s.close()));
    await Promise.all([...this.handles].map((h) => h.close()));
    // Sessions closed just now may have retired their browser: those closes are in `closings`.
    await Promise.all([...this.closings]);
    this.handles.clear();
    this.current = undefined;
  }
}
