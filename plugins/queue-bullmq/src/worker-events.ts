import type { Logger } from "@renderkit/core";
import { isNotConnectionError } from "bullmq";
import type { Redis } from "ioredis";
import type { RenderWorker } from "./render-worker.js";

/** Logged by the worker whose stall check found a job without its lock (its worker died). */
export const STALLED_MESSAGE = "a render job stalled: its worker stopped renewing the lock; it goes back to the queue";

/** Reports what an operator must know about a worker: stalls, lost locks, jobs BullMQ failed on its own. */
export function reportWorkerEvents(worker: RenderWorker, main: Redis, logger: Logger, queue: string): void {
  worker.on("stalled", (jobId) => logger.warn(STALLED_MESSAGE, { jobId, queue }));
  worker.on("lockRenewalFailed", (jobIds) => {
    logger.warn("could not renew the lock of running render jobs; another worker may run them again", { jobIds, queue });
  });
  worker.on("failed", (job, error) => {
    // Handler errors are the handler's to report. BullMQ failing a job without running it is not
    // (stall limit reached, `maxStalledCount`): the render then never gets a final event.
    if (error.name === "UnrecoverableError") {
      logger.error("BullMQ failed a render job without running it", { jobId: job?.id, reason: error.message, queue });
    }
  });
  worker.on("error", (error) => {
    // Connection errors are reported once per outage by watchClient.
    if (isNotConnectionError(error) && main.status === "ready") {
      logger.warn("render queue worker error", { error: error.message, queue });
    }
  });
}
