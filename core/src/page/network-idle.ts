import type { PageSettings } from "../contracts/engine.js";
import { RenderError } from "../errors.js";

/** Subscribes to a page's request start and end events; returns the unsubscribe. */
export type WatchRequests = (started: () => void, ended: () => void) => () => void;

/**
 * Watches the page's in-flight requests for the `requestsfinished` (0 open) and
 * `mostrequestsfinished` (at most 2 open) waits: done once that holds for the quiet period.
 */
export class NetworkIdle {
  private inflight = 0;
  private quietAt = Date.now();
  private readonly unwatch: () => void;

  constructor(
    watch: WatchRequests,
    private readonly maxInflight: number,
  ) {
    this.unwatch = watch(
      () => this.change(1),
      () => this.change(-1),
    );
  }

  /** The watch `settings.waitUntil` asks for, or undefined when it waits for a page event only. */
  static forSettings(settings: PageSettings, watch: WatchRequests): NetworkIdle | undefined {
    if (!settings.waitUntil.endsWith("requestsfinished")) return undefined;
    return new NetworkIdle(watch, settings.waitUntil === "requestsfinished" ? 0 : 2);
  }

  private change(delta: number): void {
    const before = this.inflight;
    this.inflight = Math.max(0, before + delta);
    if (this.inflight > this.maxInflight) this.quietAt = Number.POSITIVE_INFINITY;
    else if (before > this.maxInflight) this.quietAt = Date.now();
  }

  /** Resolves true once quiet for `quietMs`; false when `timeoutMs` passes first. Stops watching either way. */
  async wait(quietMs: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    try {
      while (!signal.aborted && Date.now() < deadline) {
        if (Date.now() - this.quietAt >= quietMs) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    } finally {
      this.dispose();
    }
  }

  /**
   * Waits for 500 quiet ms within what is left of the render's timeout (at least 1 s) since
   * loading `started`; RenderTimeoutError when the page keeps loading.
   */
  async settle(settings: PageSettings, started: number, signal: AbortSignal): Promise<void> {
    const left = Math.max(1_000, settings.timeoutMs - (Date.now() - started));
    if (await this.wait(500, left, signal)) return;
    throw new RenderError("RenderTimeoutError", `The page kept loading for ${settings.timeoutMs} ms (${settings.waitUntil})`);
  }

  /** Stops watching the page. Idempotent. */
  dispose(): void {
    this.unwatch();
  }
}
