import type { FinalRenderEvent, RenderEvent } from "./contracts/events.js";
import type { RenderJobInfo } from "./contracts/job.js";
import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import { JobNotDone } from "./contracts/queue.js";
import { withTimeout } from "./util/timeout.js";

/**
 * Receives every state change. A listener that returns a promise is awaited (bounded) before the
 * render moves on; its failure is logged. What must be on record goes through
 * `RendererSettings.record` instead, whose failure leaves the render not done.
 */
export type RenderListener = (event: RenderEvent) => unknown;

/** How long a state change waits for its record, listeners and notifiers. */
const RECORD_TIMEOUT_MS = 10_000;

/** Where a state change is written and who hears of it: the record, listeners, notifiers. */
export interface RenderEventSinks {
  notifiers: readonly Notifier[];
  logger: Logger;
  /** The durable record (`RendererSettings.record`). */
  record?: (event: RenderEvent) => Promise<void>;
  /** The final event on record for a render (`RendererSettings.finalEvent`). */
  recorded?: (renderId: string) => Promise<FinalRenderEvent | undefined>;
}

/** The renderer's record, listeners and notifiers, told of every state change in order. */
export class RenderEvents {
  private readonly listeners = new Set<RenderListener>();

  constructor(private readonly sinks: RenderEventSinks) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: RenderListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records a state change and tells listeners (notifiers too, for final events, through
   * `finish`). A change that is not final and cannot be recorded is logged and the render goes on.
   */
  async emit(event: RenderEvent, job?: RenderJobInfo): Promise<void> {
    if (event.type === "render.succeeded" || event.type === "render.failed") {
      await this.finish(event, job);
      return;
    }
    const full: RenderEvent = { ...event, job };
    await Promise.all([this.write(full), this.tell(full)]);
  }

  /**
   * Ends a render: records the final event and tells listeners, then hands the notifiers the
   * outcome ON RECORD and resolves with it (`event` itself when it is the one on record). The two
   * differ only when another process ended the render first (a worker whose lock a stall check
   * took away finishes anyway; the record's compare-and-set keeps the first end): every
   * notification then tells what the status endpoint shows. Throws `JobNotDone` when the end
   * could not be recorded or handed to the notifiers: the queue runs the job again, and the
   * renderer then re-notifies from the record instead of rendering twice.
   */
  async finish(event: FinalRenderEvent, job?: RenderJobInfo): Promise<FinalRenderEvent> {
    const full = { ...event, job };
    // Listeners hear it while it is recorded (as sync waiters wake); should the record fail, the
    // render runs again and they hear its end once more.
    const [written] = await Promise.all([this.write(full), this.tell(full)]);
    if (!written) throw notDone(event, "its end could not be recorded");
    let winner: FinalRenderEvent = event;
    try {
      const recorded = await this.sinks.recorded?.(event.renderId);
      // The record keeps fewer fields (no local path): this event stands when it is the one on record.
      if (recorded && (recorded.type !== event.type || recorded.endTime !== event.endTime)) winner = recorded;
    } catch (error) {
      throw notDone(event, "its recorded end could not be read", error);
    }
    if (winner.type !== event.type) {
      this.sinks.logger.warn("another attempt ended this render first; its outcome stands", { renderId: event.renderId });
    }
    if (!(await this.notify({ ...winner, job }))) throw notDone(event, "a notifier could not take its end");
    return winner;
  }

  /** Hands a final event to every notifier (bounded); false when one failed to take it. */
  async notify(event: FinalRenderEvent): Promise<boolean> {
    const { notifiers, logger } = this.sinks;
    return this.settle(
      event,
      notifiers.map((notifier) =>
        notifier.notify(event).then(
          () => true,
          (error: unknown) => {
            logger.error("notifier failed", { notifier: notifier.name, renderId: event.renderId, error: String(error) });
            return false;
          },
        ),
      ),
    );
  }

  /** Writes the durable record (bounded); false when it failed or took too long. */
  private async write(full: RenderEvent): Promise<boolean> {
    const { record, logger } = this.sinks;
    if (!record) return true;
    const written = record(full).then(
      () => true,
      (error: unknown) => {
        logger.error("recording a render event failed", { renderId: full.renderId, type: full.type, error: String(error) });
        return false;
      },
    );
    return this.settle(full, [written]);
  }

  /** Tells every listener and waits (bounded) for what they return; failures are logged. */
  private async tell(full: RenderEvent): Promise<void> {
    const { logger } = this.sinks;
    const pending: Promise<boolean>[] = [];
    for (const listener of this.listeners) {
      try {
        const returned = listener(full);
        if (returned instanceof Promise) {
          pending.push(
            returned.then(
              () => true,
              (error: unknown) => {
                logger.error("a render listener failed", { renderId: full.renderId, type: full.type, error: String(error) });
                return true;
              },
            ),
          );
        }
      } catch (error) {
        logger.error("a render listener threw", { renderId: full.renderId, type: full.type, error: String(error) });
      }
    }
    if (pending.length > 0) await this.settle(full, pending);
  }

  /** Waits for `pending` up to the bound; true when all settled true in time. */
  private settle(event: RenderEvent, pending: Promise<boolean>[]): Promise<boolean> {
    return withTimeout(Promise.all(pending), RECORD_TIMEOUT_MS).then(
      (results) => results.every(Boolean),
      () => {
        this.sinks.logger.warn("recording a render event took too long", { renderId: event.renderId, type: event.type });
        return false;
      },
    );
  }
}

function notDone(event: FinalRenderEvent, why: string, cause?: unknown): JobNotDone {
  return new JobNotDone(`Render ${event.renderId} is not done: ${why}; it runs again`, 5_000, { cause });
}
