import { abortReason } from "./timeout.js";

/** Counting semaphore whose waiters leave the line when their signal aborts. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void; signal?: AbortSignal; onAbort: () => void }> = [];

  constructor(private readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  /** Waits for a slot; resolves with its release function (safe to call twice). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const grant = () => {
        this.active++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.active--;
          this.next();
        });
      };
      if (this.active < this.limit) return grant();
      const entry = {
        grant,
        signal,
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(abortReason(signal as AbortSignal));
        },
      };
      signal?.addEventListener("abort", entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private next(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      const entry = this.waiting.shift();
      if (!entry) return;
      entry.signal?.removeEventListener("abort", entry.onAbort);
      entry.grant();
    }
  }
}
