import { type JobHandler, JobNotDone, type Logger, withTimeout } from "@renderkit/core";
import { DelayedError, type Job, WaitingError } from "bullmq";
import type { Redis } from "ioredis";
import { stoppedByShutdown } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { closeClient, watchClient, workerClient } from "./redis-clients.js";
import { RenderWorker } from "./render-worker.js";
import { sharedBackend } from "./shared-backend.js";
import { fromBullJob, type StoredJob } from "./stored-job.js";
import { reportWorkerEvents } from "./worker-events.js";

/** After their signal aborted, how long handlers get to return before close moves on. */
const ABORT_GRACE_MS = 5_000;
/** How long close waits for BullMQ to record the outcome of the last jobs (one Redis round trip each). */
const RECORD_GRACE_MS = 5_000;

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The worker side (worker nodes only): a BullMQ `Worker` on two connections of its own, and the
 * bookkeeping `close()` needs to abort and put back the jobs still running.
 */
export class Consumer {
  private readonly running = new Map<string, Running>();
  private readonly main: Redis;
  private readonly blocking: Redis;
  private readonly worker: RenderWorker;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly logger: Logger,
    private readonly handler: JobHandler,
    concurrency: number,
  ) {
    const { connection, queueName, prefix } = options;
    this.main = workerClient(connection, `${prefix}:${queueName}:worker`);
    // Named as BullMQ names a worker's blocking connection: `Queue.getWorkers()` (dashboards) finds workers by it.
    this.blocking = workerClient(connection, `${prefix}:${Buffer.from(queueName).toString("base64")}`);
    watchClient(this.main, "worker", logger);
    watchClient(this.blocking, "worker-fetch", logger);
    // Two parameters, not three: BullMQ then skips its own per-job AbortController; ours is the one close() aborts.
    const processor = (job: Job<StoredJob, void>, token?: string) => this.process(job, token);
    this.worker = new RenderWorker(
      queueName,
      processor,
      {
        connection: this.main,
        prefix,
        concurrency,
        lockDuration: options.lockDurationMs,
        stalledInterval: options.stalledIntervalMs,
        maxStalledCount: options.maxStalledCount,
      },
      sharedBackend(prefix, this.main, this.blocking),
    );
    reportWorkerEvents(this.worker, this.main, logger, queueName);
  }

  /** BullMQ's processor: runs the handler, then completes, fails (handler threw) or puts the job back (close aborted it). */
  private async process(job: Job<StoredJob, void>, token?: string): Promise<void> {
    const queueJob = fromBullJob(job);
    if (job.attemptsStarted > 1) {
      this.logger.info("render job delivered again", {
        jobId: queueJob.id,
        attempt: queueJob.attempt,
        stalls: job.stalledCounter,
      });
    }
    const controller = new AbortController();
    let finish = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.running.set(queueJob.id, { controller, done });
    try {
      let failure: { error: unknown } | undefined;
      try {
        await this.handler(queueJob, controller.signal);
      } catch (error) {
        failure = { error };
      }
      if (controller.signal.aborted) {
        await this.putBack(job, token);
        // BullMQ leaves a job alone when the processor says it moved it (Worker.handleFailed).
        throw new WaitingError();
      }
      if (failure?.error instanceof JobNotDone) {
        await this.putBack(job, token, failure.error.retryInMs);
        throw new DelayedError();
      }
      if (failure) throw handlerFailure(failure.error);
    } finally {
      this.running.delete(queueJob.id);
      finish();
    }
  }

  /**
   * Puts a job that close() cut short back at the head of the wait list, keeping it out of the
   * completed set (`moveJobFromActiveToWait.lua`: checks our lock token, `LREM` from active,
   * `RPUSH` to wait, where workers take from); with `delayMs`, into the delayed set for that long.
   * Its next start counts one more attempt.
   */
  private async putBack(job: Job<StoredJob, void>, token: string | undefined, delayMs?: number): Promise<void> {
    try {
      // With Redis unreachable the command would wait in the offline queue until close disconnects.
      if (this.main.status !== "ready") throw new Error(`Redis is not connected (${this.main.status})`);
      if (delayMs === undefined) {
        await withTimeout(job.moveToWait(token), RECORD_GRACE_MS);
        this.logger.info("render job put back in the queue by shutdown", { jobId: job.id, queue: this.options.queueName });
      } else {
        // Its end could not be recorded (JobNotDone): it runs again later, one attempt further.
        await withTimeout(job.moveToDelayed(Date.now() + delayMs, token), RECORD_GRACE_MS);
        this.logger.warn("render job not done; it runs again", { jobId: job.id, inMs: delayMs });
      }
    } catch (error) {
      // Lock lost or Redis gone: the lock expires and the stall check of a live worker puts it back.
      this.logger.warn("could not put a render job back; stall detection will", {
        jobId: job.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * Stops fetching at once; running jobs get `timeoutMs`, then their signal aborts and they go
   * back to the queue. Every connection is closed when this returns, also when Redis is gone.
   */
  async stop(timeoutMs: number): Promise<void> {
    let closed = false;
    const closing = this.worker.close().then(
      () => {
        closed = true;
      },
      (error: unknown) => this.logger.warn("render queue worker did not close cleanly", { error: String(error) }),
    );
    if (!(await this.settle(timeoutMs))) this.abort();
    await this.settle(ABORT_GRACE_MS);
    // BullMQ records the outcomes on the main connection; waiting only helps while Redis answers.
    if (this.main.status === "ready") await withTimeout(closing, RECORD_GRACE_MS).catch(() => undefined);
    // A job fetched in the very last moment: abort it too, so nothing runs on without its queue.
    if (this.abort() > 0) await this.settle(ABORT_GRACE_MS);
    if (!closed) this.worker.halt();
    await Promise.all([closeClient(this.blocking, 1_000), closeClient(this.main, 1_000)]);
  }

  /** Aborts the signal of every running job not aborted yet; returns how many. */
  private abort(): number {
    const fresh = [...this.running.values()].filter((r) => !r.controller.signal.aborted);
    for (const r of fresh) r.controller.abort(stoppedByShutdown());
    return fresh.length;
  }

  /** Waits until no handler runs, up to `ms`; false when some still run. */
  private async settle(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await withTimeout(Promise.all([...this.running.values()].map((r) => r.done)), left).catch(() => undefined);
    }
    return true;
  }
}

/**
 * The handler's error as BullMQ stores it (failed set). The fixed prefix keeps a message or name
 * from ever matching one of BullMQ's control errors (rate limit, delayed, waiting).
 */
function handlerFailure(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`render handler failed: ${message}`, { cause: error });
}
