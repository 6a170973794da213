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
import { BrowserPool, openLeased } from "@renderkit/core/chromium";
import type { Browser } from "puppeteer-core";
import { inject, injectable } from "tsyringe";
import { connectPuppeteer } from "./connection.js";
import { loadPage } from "./load-page.js";
import { PUPPETEER_OPTIONS, type PuppeteerOptions } from "./options.js";
import { PuppeteerSession } from "./puppeteer-session.js";

/**
 * Engine on puppeteer-core and a system Chromium this engine launches itself (its own process
 * group, profile and watchdog); Puppeteer only connects over the DevTools WebSocket. One warm
 * browser; every render gets a fresh browser context behind its own egress proxy; crash →
 * relaunch; recycled after `recycleAfter` renders (all in core's `BrowserPool`).
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

  constructor(@inject(PUPPETEER_OPTIONS) options: PuppeteerOptions, @inject(LOGGER) logger: Logger) {
    this.pool = new BrowserPool({ ...options, name: this.name, connect: connectPuppeteer, logger });
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
      const loaded = await loadPage(lease.browser, target, settings, signal);
      return new PuppeteerSession(loaded, settings.timeoutMs, lease.release);
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
