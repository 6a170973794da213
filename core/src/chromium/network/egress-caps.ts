import { type EgressLimits, RenderError } from "../../index.js";

// How the egress proxy holds a render to its `EgressLimits` (their defaults are the renderer's
// settings): connection slots, and the render's error past the byte cap.

/**
 * Connections that may wait for a slot; more are refused at once. Chromium sends at most 256
 * ordinary connections and 255 WebSockets per context, so it never meets the refusal.
 */
export const MAX_WAITING_CONNECTIONS = 512;

/** The render's error once its page went over `maxBytes`: the page is at fault (4xx). */
export function overByteCap(limits: EgressLimits): RenderError {
  const mb = (limits.maxBytes / (1024 * 1024)).toLocaleString("en-US", { maximumFractionDigits: 1 });
  return new RenderError(
    "HTMLProcessError",
    `The page received more than ${mb} MiB from the network, this server's limit per render; the render was stopped`,
    { details: { limit: "egress.maxBytes", bytes: limits.maxBytes } },
  );
}

/** Gives a connection's slot back; idempotent. */
export type ReleaseSlot = () => void;

/**
 * A counting semaphore over the render's open connections, first come first served. `acquire`
 * resolves with a release function once a slot is free (at once while there is one), or with
 * undefined when the connection is refused: `maxWaiting` connections already wait, or the slots
 * were drained while it waited.
 */
export class ConnectionSlots {
  private open = 0;
  private readonly waiting: ((release: ReleaseSlot | undefined) => void)[] = [];

  constructor(
    private max: number,
    private readonly maxWaiting = MAX_WAITING_CONNECTIONS,
  ) {}

  /** Sets a new cap (a pre-opened session taken by a render); waiting connections get freed slots. */
  reset(max: number): void {
    this.max = max;
    this.grant();
  }

  /** Connections holding a slot now, and waiting for one. */
  counts(): { open: number; waiting: number } {
    return { open: this.open, waiting: this.waiting.length };
  }

  acquire(): Promise<ReleaseSlot | undefined> {
    if (this.open < this.max && this.waiting.length === 0) return Promise.resolve(this.take());
    if (this.max === 0 || this.waiting.length >= this.maxWaiting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Refuses every waiting and later connection (the session closed or went over its byte cap). */
  drain(): void {
    this.max = 0;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }

  private take(): ReleaseSlot {
    this.open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      this.grant();
    };
  }

  private grant(): void {
    while (this.open < this.max && this.waiting.length > 0) this.waiting.shift()?.(this.take());
  }
}
