import { type PageSettings, RenderError } from "../../index.js";

/** Subscribes to a page's request start and end events; returns the unsubscribe. */
export type WatchRequests = (started: () => void, ended: () => void) => () => void;

/**
 * The quiet period of `requestsfinished` and `mostrequestsfinished`: 500 ms, as this API family
 * defines them ("0 connections for 500 ms") and as Puppeteer's `networkidle0` and Playwright's
 * `networkidle` wait. A shorter period captures unfinished any page whose next request starts
 * later than that after its last one ended (a chained fetch, a lazy image, a retry timer); the
 * wait itself ends the moment the period does (docs/performance.md).
 */
export const QUIET_MS = 500;

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

  /** Told when the page goes quiet or busy again (`wait`'s timer). */
  private onChange: (() => void) | undefined;

  private change(delta: number): void {
    const before = this.inflight;
    this.inflight = Math.max(0, before + delta);
    if (this.inflight > this.maxInflight) this.quietAt = Number.POSITIVE_INFINITY;
    else if (before > this.maxInflight) this.quietAt = Date.now();
    else return;
    this.onChange?.();
  }

  /**
   * Resolves true once quiet for `quietMs`; false when `timeoutMs` passes first. Stops watching
   * either way. A timer for the moment the quiet period would end, moved when requests start or
   * end: no polling, so the wait ends when the period does.
   */
  async wait(quietMs: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let check = () => {};
    try {
      return await new Promise<boolean>((resolve) => {
        check = () => {
          clearTimeout(timer);
          if (signal.aborted) return resolve(false);
          const now = Date.now();
          if (now - this.quietAt >= quietMs) return resolve(true);
          if (now >= deadline) return resolve(false);
          // Busy (quietAt is infinite): only the deadline can end the wait before a change does.
          const next = Number.isFinite(this.quietAt) ? Math.min(this.quietAt + quietMs, deadline) : deadline;
          timer = setTimeout(check, Math.max(1, next - now));
        };
        this.onChange = check;
        signal.addEventListener("abort", check, { once: true });
        check();
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", check);
      this.onChange = undefined;
      this.dispose();
    }
  }

  /**
   * Waits for `QUIET_MS` quiet within what is left of the render's timeout (at least 1 s) since
   * loading `started`; RenderTimeoutError when the page keeps loading.
   */
  async settle(settings: PageSettings, started: number, signal: AbortSignal): Promise<void> {
    const left = Math.max(1_000, settings.timeoutMs - (Date.now() - started));
    if (await this.wait(QUIET_MS, left, signal)) return;
    throw new RenderError("RenderTimeoutError", `The page kept loading for ${settings.timeoutMs} ms (${settings.waitUntil})`);
  }

  /** Stops watching the page. Idempotent. */
  dispose(): void {
    this.unwatch();
  }
}
