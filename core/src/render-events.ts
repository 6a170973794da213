import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import type { FinalRenderEvent, RenderEvent } from "./events.js";
import { withTimeout } from "./util/timeout.js";

/**
 * Receives every state change. A listener that returns a promise (a record written to disk) is
 * awaited before the render moves on: before `submit` resolves for `render.created`, and before
 * the queue forgets the job for `render.succeeded` / `render.failed`.
 */
export type RenderListener = (event: RenderEvent) => unknown;

/** How long a state change waits for listeners and notifiers to record it. */
const RECORD_TIMEOUT_MS = 10_000;

/** The renderer's listeners and notifiers, told of every state change in order. */
export class RenderEvents {
  private readonly listeners = new Set<RenderListener>();

  constructor(
    private readonly notifiers: readonly Notifier[],
    private readonly logger: Logger,
    /** The final event on record for a render (`RendererSettings.finalEvent`). */
    private readonly recorded?: (renderId: string) => Promise<FinalRenderEvent | undefined>,
  ) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: RenderListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells listeners, then notifiers (final events), and resolves once what they return has settled
   * (bounded): a final event is on record before the queue drops the job. Listeners first: a
   * redelivered job whose end is on record is not run again but handed to the notifiers again
   * (`RendererSettings.finalEvent`), and they drop what they already hold; so a crash at any point
   * neither loses the notification nor sends a second, different outcome.
   */
  async emit(event: RenderEvent, meta?: Record<string, unknown>): Promise<void> {
    if (event.type === "render.succeeded" || event.type === "render.failed") {
      await this.finish(event, meta);
      return;
    }
    await this.record({ ...event, meta });
  }

  /**
   * Ends a render: records the final event, then hands the notifiers the outcome ON RECORD and
   * resolves with it (`event` itself when it is the one on record). The two differ only when
   * another process ended the render first (a worker whose lock a stall check took away finishes
   * anyway; the record's compare-and-set keeps the first end): every notification then tells
   * what the status endpoint shows.
   */
  async finish(event: FinalRenderEvent, meta?: Record<string, unknown>): Promise<FinalRenderEvent> {
    await this.record({ ...event, meta });
    let winner: FinalRenderEvent = event;
    try {
      const recorded = await this.recorded?.(event.renderId);
      // The record keeps fewer fields (no local path): this event stands when it is the one on record.
      if (recorded && (recorded.type !== event.type || recorded.endTime !== event.endTime)) winner = recorded;
    } catch (error) {
      this.logger.warn("reading the recorded end of a render failed; notifying this outcome", {
        renderId: event.renderId,
        error: String(error),
      });
    }
    if (winner.type !== event.type) {
      this.logger.warn("another attempt ended this render first; its outcome stands", { renderId: event.renderId });
    }
    await this.notify({ ...winner, meta });
    return winner;
  }

  /** Tells every listener and waits (bounded) for what they return. */
  private async record(full: RenderEvent): Promise<void> {
    const { logger } = this;
    const pending: Promise<unknown>[] = [];
    for (const listener of this.listeners) {
      try {
        const returned = listener(full);
        if (returned instanceof Promise) {
          pending.push(returned.catch((error: unknown) => logger.error("a render listener failed", { error: String(error) })));
        }
      } catch (error) {
        logger.error("a render listener threw", { error: String(error) });
      }
    }
    if (pending.length > 0) await this.settle(full, pending);
  }

  /** Hands a final event to every notifier (bounded); a notifier's failure is logged, never thrown. */
  async notify(event: FinalRenderEvent): Promise<void> {
    await this.settle(
      event,
      this.notifiers.map((notifier) =>
        notifier
          .notify(event)
          .catch((error: unknown) => this.logger.error("notifier failed", { notifier: notifier.name, error: String(error) })),
      ),
    );
  }

  private settle(event: RenderEvent, pending: Promise<unknown>[]): Promise<unknown> {
    return withTimeout(Promise.all(pending), RECORD_TIMEOUT_MS).catch(() =>
      this.logger.warn("recording a render event took too long", { renderId: event.renderId, type: event.type }),
    );
  }
}
