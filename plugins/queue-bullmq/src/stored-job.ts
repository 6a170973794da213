import { type QueueJob, RenderError } from "@renderkit/core";
import { isSafeId } from "@renderkit/core/internal";
import type { Job } from "bullmq";

/** What a BullMQ job carries as its data: the queue job minus its id (the BullMQ job id). */
export interface StoredJob {
  data: unknown;
  /** The attempt the job was added with (1 for a new render). */
  attempt: number;
  enqueuedAt: number;
}

/** BullMQ job name of every render job (BullMQ wants one; it is shown by dashboards). */
export const JOB_NAME = "render";

/**
 * Ids become BullMQ job ids and Redis key names: the core's safe id alphabet, and not all digits
 * (BullMQ refuses integer-looking custom ids, which it would confuse with its own counters).
 */
export function checkJobId(id: unknown): string {
  if (typeof id !== "string" || !isSafeId(id)) {
    throw new RenderError("InvalidOptions", "A queue job id must be 1 to 128 of A-Z a-z 0-9 _ -");
  }
  if (/^\d+$/.test(id)) throw new RenderError("InvalidOptions", "A queue job id cannot be only digits");
  return id;
}

/** The BullMQ payload of `job`, as it will read back (JSON), or `InvalidOptions` when it is not JSON. */
export function toStored(job: QueueJob): StoredJob {
  if (!Number.isInteger(job.attempt) || job.attempt < 1) {
    throw new RenderError("InvalidOptions", "A queue job attempt must be an integer from 1");
  }
  if (!Number.isFinite(job.enqueuedAt)) throw new RenderError("InvalidOptions", "A queue job enqueuedAt must be a time in ms");
  try {
    const text = JSON.stringify({ data: job.data, attempt: job.attempt, enqueuedAt: job.enqueuedAt });
    return JSON.parse(text) as StoredJob;
  } catch (cause) {
    throw new RenderError("InvalidOptions", "The job data cannot be stored as JSON", { cause });
  }
}

/**
 * The queue job a worker hands to the handler. BullMQ counts every start of a job in
 * `attemptsStarted` (`prepareJobForProcessing.lua`: `HINCRBY jobKey "ats" 1`, each time a worker
 * moves it to active), whether the previous start ended with a dead worker (stall) or a shutdown
 * that put it back. So each start after the first is one more attempt than the job was added with.
 */
export function fromBullJob(job: Job<StoredJob>): QueueJob {
  const stored: Partial<StoredJob> = job.data ?? {};
  const added = Number.isInteger(stored.attempt) && (stored.attempt as number) >= 1 ? (stored.attempt as number) : 1;
  const restarts = Math.max(0, (job.attemptsStarted || 1) - 1);
  return {
    id: String(job.id),
    data: stored.data,
    attempt: added + restarts,
    enqueuedAt: typeof stored.enqueuedAt === "number" ? stored.enqueuedAt : job.timestamp,
  };
}
