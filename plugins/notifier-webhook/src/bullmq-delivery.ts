import { createHash } from "node:crypto";
import { type Logger, withTimeout } from "@renderkit/core";
import type { Job } from "bullmq";
import { retryDelay, type WebhookTuning } from "./options.js";
import { hostOf, type Sender, sendDelivery } from "./send.js";

/** Name of the BullMQ queue that holds deliveries (under the configured prefix). */
export const WEBHOOK_QUEUE = "webhooks";

/** Backoff type stored on every delivery job; the worker's `backoffStrategy` reads the schedule for it. */
export const BACKOFF_TYPE = "webhook-schedule";

/** A delivery job's data: what every attempt sends, fixed when the job is added. */
export interface DeliveryJobData {
  renderId: string;
  /** The webhook address; may carry a receiver's token, so it is stored but never logged. */
  url: string;
  projectId?: string;
  /** `webhookBody(event)`: the exact bytes every attempt sends. */
  body: string;
}

/** What a delivered job keeps as its return value. */
export interface DeliveredResult {
  status: number;
  attempt: number;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The job id of a render's delivery: the render id itself (UUIDs, with `_s` / `_l` suffixes).
 * BullMQ refuses ids that are integers or hold `:`; render ids are opaque, so any id that is not
 * a plain name is hashed (`~<sha256>`), which still maps one render to one job.
 */
export function jobIdFor(renderId: string): string {
  if (SAFE_ID.test(renderId) && !/^\d+$/.test(renderId)) return renderId;
  return `~${createHash("sha256").update(renderId).digest("hex")}`;
}

/** A failed attempt that the schedule retries; carries the jittered delay that was logged. */
class ScheduledRetry extends Error {
  constructor(
    reason: string,
    readonly retryInMs: number,
  ) {
    super(reason);
    this.name = "ScheduledRetry";
  }
}

/**
 * The worker's `settings.backoffStrategy`: the delay the attempt logged, else the schedule's
 * delay after attempt `attemptsMade` with jitter, and -1 (no retry) past the schedule.
 */
export function scheduleBackoff(tuning: WebhookTuning): (attemptsMade: number, type?: string, error?: Error) => number {
  return (attemptsMade, _type, error) =>
    error instanceof ScheduledRetry ? error.retryInMs : (retryDelay(tuning, attemptsMade) ?? -1);
}

/** What the processor needs; the error classes come from the `bullmq` module loaded on demand. */
export interface DeliveryWork {
  tuning: WebhookTuning;
  sender: Sender;
  logger: Logger;
  /** BullMQ's `UnrecoverableError` (fail now, no retry) and `DelayedError` (job moved, nothing to record). */
  errors: { Unrecoverable: new (message?: string) => Error; Delayed: new (message?: string) => Error };
}

/** How long a cut attempt may take to hand its job back before leaving it to stall detection. */
const HAND_BACK_MS = 1_000;

function isDeliveryData(data: unknown): data is DeliveryJobData {
  const d = data as Partial<DeliveryJobData> | undefined;
  return typeof d?.renderId === "string" && typeof d.url === "string" && typeof d.body === "string";
}

/**
 * The BullMQ processor: one attempt of `sendDelivery()` (same signing, pinned POST and time-out
 * as the file notifier), then tells BullMQ what follows. Delivered: the job completes. Permanent
 * failure or no retry left: `UnrecoverableError`, the job fails. Otherwise an error whose delay
 * the backoff strategy applies. Logs as the file notifier does: render id, host, status,
 * attempt and reason; never the address's path or query, the body or the secret.
 */
export function deliveryProcessor(work: DeliveryWork): (job: Job, token?: string) => Promise<DeliveredResult> {
  const { tuning, sender, logger, errors } = work;
  return async (job, token) => {
    if (!isDeliveryData(job.data)) throw new errors.Unrecoverable("not a webhook delivery job");
    const delivery = job.data;
    const attempt = job.attemptsMade + 1;
    const outcome = await sendDelivery(delivery, sender);
    const log = { renderId: delivery.renderId, host: hostOf(delivery.url), status: outcome.status, attempt };
    if (outcome.delivered) {
      logger.info("webhook delivered", log);
      return { status: outcome.status ?? 0, attempt };
    }
    if (outcome.interrupted) {
      // Cut by close(): the result is unknown and the attempt is not counted. The job goes back
      // to the queue at once; if Redis cannot take it now, its lock expires and another worker's
      // stall check hands it on.
      if (token !== undefined) await withTimeout(job.moveToDelayed(Date.now(), token), HAND_BACK_MS).catch(() => undefined);
      throw new errors.Delayed("interrupted by close()");
    }
    const retryInMs = outcome.permanent || attempt >= (job.opts.attempts ?? 1) ? undefined : retryDelay(tuning, attempt);
    if (retryInMs === undefined) {
      logger.warn("webhook delivery given up", { ...log, reason: outcome.reason, permanent: outcome.permanent });
      throw new errors.Unrecoverable(outcome.reason);
    }
    logger.info("webhook attempt failed, will retry", { ...log, reason: outcome.reason, retryInMs });
    throw new ScheduledRetry(outcome.reason, retryInMs);
  };
}
