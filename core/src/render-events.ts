import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import type { RenderEvent } from "./events.js";
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
  ) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: RenderListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells notifiers (final events) and listeners, and resolves once what they return has settled
   * (bounded): a final event is on record before the queue drops the job, so a crash in between
   * replays the job instead of losing its webhook or its status. Notifiers first: a render whose
   * final status is recorded is not run again, so its webhook must be recorded before it.
   */
  async emit(event: RenderEvent, meta?: Record<string, unknown>): Promise<void> {
    const full = { ...event, meta };
    const { logger } = this;
    const settle = (pending: Promise<unknown>[]) =>
      withTimeout(Promise.all(pending), RECORD_TIMEOUT_MS).catch(() =>
        logger.warn("recording a render event took too long", { renderId: event.renderId, type: event.type }),
      );
    if (event.type === "render.succeeded" || event.type === "render.failed") {
      await settle(
        this.notifiers.map((notifier) =>
          notifier
            .notify(full)
            .catch((error: unknown) => logger.error("notifier failed", { notifier: notifier.name, error: String(error) })),
        ),
      );
    }
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
    if (pending.length > 0) await settle(pending);
  }
}
