import { hostname } from "node:os";
import { type Logger, withTimeout } from "@renderkit/core";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import {
  type DeliveredResult,
  type DeliveryJobData,
  deliveryProcessor,
  scheduleBackoff,
  WEBHOOK_QUEUE,
} from "./bullmq-delivery.js";
import type { ResolvedRedisOptions, WebhookTuning } from "./options.js";
import type { Sender } from "./send.js";

/** How long `stop()` waits for posts in flight before cutting them (as the file notifier does). */
const CLOSE_GRACE_MS = 5_000;

/** What the delivery worker needs; `bullmq` is the module the notifier loaded on demand. */
export interface DeliveryWorkerOptions {
  bullmq: typeof import("bullmq");
  connection: Redis;
  redis: ResolvedRedisOptions;
  tuning: WebhookTuning;
  sender: Omit<Sender, "signal">;
  logger: Logger;
  /** Where the worker's Redis errors go (the notifier throttles them). */
  onError(error: Error): void;
  /** Bound of each step of `stop()` that waits on Redis. */
  stepMs: number;
}

/**
 * The BullMQ worker that runs deliveries in this process, and its bounded stop. Another node's
 * worker takes over the deliveries of a process that died: a live worker renews its lock every
 * `lockMs / 2` however long a POST takes; a dead one's lock expires after `lockMs`, and the next
 * stall check (every `lockMs`, on any worker) moves the job back to the queue.
 */
export class DeliveryWorker {
  private readonly worker: Worker<DeliveryJobData, DeliveredResult>;
  private readonly closer = new AbortController();
  /** Attempts running in this process. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly stepMs: number;

  constructor(options: DeliveryWorkerOptions) {
    const { bullmq, redis, tuning, logger } = options;
    this.stepMs = options.stepMs;
    const processor = deliveryProcessor({
      tuning,
      sender: { ...options.sender, signal: this.closer.signal },
      logger,
      errors: { Unrecoverable: bullmq.UnrecoverableError, Delayed: bullmq.DelayedError },
    });
    this.worker = new bullmq.Worker<DeliveryJobData, DeliveredResult>(
      WEBHOOK_QUEUE,
      (job, token) => this.track(processor(job, token)),
      {
        connection: options.connection,
        prefix: redis.prefix,
        // Stored on the jobs it takes: which machine and process delivered.
        name: `${hostname()}:${process.pid}`,
        concurrency: tuning.concurrency,
        lockDuration: redis.lockMs,
        stalledInterval: redis.lockMs,
        // A delivery whose worker keeps dying is given up after as many stalls as it has attempts.
        maxStalledCount: tuning.schedule.length + 1,
        settings: { backoffStrategy: scheduleBackoff(tuning) },
      },
    );
    this.worker.on("error", options.onError);
    this.worker.on("stalled", (jobId) =>
      logger.warn("webhook delivery stalled (its worker stopped); delivering again", { jobId }),
    );
  }

  private track<T>(run: Promise<T>): Promise<T> {
    this.inFlight.add(run);
    const done = () => this.inFlight.delete(run);
    run.then(done, done);
    return run;
  }

  /**
   * Takes no new deliveries, gives posts in flight up to 5 s, then cuts them (their jobs go back
   * to the queue uncounted). With Redis up, BullMQ's own close does the waiting and records every
   * outcome. With Redis down that close would wait for Redis forever, so the worker is paused, the
   * posts are awaited here, and the worker is force-closed: outcomes that cannot be recorded leave
   * their jobs active, and stall detection hands them on once Redis is back.
   */
  async stop(redisUp: boolean): Promise<void> {
    const stopping = (redisUp ? this.worker.close() : this.worker.pause(true)).catch(() => undefined);
    const settled = () => Promise.allSettled([...this.inFlight]);
    await withTimeout(settled(), CLOSE_GRACE_MS).catch(async () => {
      this.closer.abort();
      await withTimeout(settled(), this.stepMs).catch(() => undefined);
    });
    this.closer.abort();
    await withTimeout(stopping, this.stepMs).catch(() => undefined);
    if (!redisUp) await withTimeout(this.worker.close(true), this.stepMs).catch(() => undefined);
  }
}
