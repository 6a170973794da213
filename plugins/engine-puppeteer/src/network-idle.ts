import type { Page } from "puppeteer-core";

/**
 * Watches the page's in-flight requests for the `requestsfinished` (0 open) and
 * `mostrequestsfinished` (at most 2 open) waits: done once that holds for 500 ms.
 */
export class NetworkIdle {
  private inflight = 0;
  private quietAt = Date.now();
  private readonly started = () => this.change(1);
  private readonly ended = () => this.change(-1);

  constructor(
    private readonly page: Page,
    private readonly maxInflight: number,
  ) {
    page.on("request", this.started);
    page.on("requestfinished", this.ended);
    page.on("requestfailed", this.ended);
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

  /** Stops listening to the page. Idempotent. */
  dispose(): void {
    this.page.off("request", this.started);
    this.page.off("requestfinished", this.ended);
    this.page.off("requestfailed", this.ended);
  }
}
