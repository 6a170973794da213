import type { Page } from "playwright-core";

/**
 * Watches the page's in-flight requests for the `requestsfinished` (0 open) and
 * `mostrequestsfinished` (at most 2 open) waits: done once that holds for 500 ms.
 */
export class NetworkIdle {
  private inflight = 0;
  private quietAt = Date.now();

  constructor(
    page: Page,
    private readonly maxInflight: number,
  ) {
    page.on("request", () => this.change(1));
    page.on("requestfinished", () => this.change(-1));
    page.on("requestfailed", () => this.change(-1));
  }

  private change(delta: number): void {
    const before = this.inflight;
    this.inflight = Math.max(0, before + delta);
    if (this.inflight > this.maxInflight) this.quietAt = Number.POSITIVE_INFINITY;
    else if (before > this.maxInflight) this.quietAt = Date.now();
  }

  /** Resolves true once quiet for `quietMs`; false when `timeoutMs` passes first. */
  async wait(quietMs: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!signal.aborted && Date.now() < deadline) {
      if (Date.now() - this.quietAt >= quietMs) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }
}
