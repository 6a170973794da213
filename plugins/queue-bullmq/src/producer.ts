import { type Logger, type QueueCounts, type QueueJob, RenderError, withTimeout } from "@renderkit/core";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type ClaimKeys, claimId, releaseId } from "./claim.js";
import { shuttingDown, unavailable } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { closeClient, FIRST_CONNECT_MS, producerClient, untilReady, watchClient } from "./redis-clients.js";
import { JOB_NAME, type StoredJob, toStored } from "./stored-job.js";

/** Bound on one producer operation, above the connection's own command timeout: a last guard, never the usual path. */
const OPERATION_MS = 15_000;

/**
 * The adding side, used by every node (API nodes only add). Its connection and BullMQ `Queue`
 * are opened on first use, so a renderer that never adds opens nothing.
 */
export class Producer {
  private opened: { client: Redis; queue: Queue<StoredJob> } | undefined;
  private closed = false;
  /** The wait for the connection, shared by concurrent calls (one set of listeners on the client). */
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly logger: Logger,
  ) {}

  /** Adds `job` under its id, refusing duplicates and a full queue; Redis failures become a retryable 503. */
  async add(job: QueueJob): Promise<void> {
    const stored = toStored(job);
    const { client, queue } = this.open();
    const keys = this.claimKeys(queue, job.id);
    await this.guard(this.ready(client));
    const verdict = await this.guard(claimId(client, keys, job.id, this.options.maxWaiting));
    if (verdict === "held") throw new RenderError("InvalidOptions", `A render with id ${job.id} is already queued`);
    if (verdict === "full") {
      throw new RenderError("ServiceUnavailable", "The render queue is full; try again later", { retryable: true });
    }
    try {
      if (verdict === "finished") await this.guard(this.removeFinished(client, queue, keys, job.id));
      await this.guard(
        queue.add(JOB_NAME, stored, {
          jobId: job.id,
          // The renderer runs the attempts; a BullMQ retry would run a render it already reported.
          attempts: 1,
          removeOnComplete: keep(this.options.keepCompletedSeconds),
          removeOnFail: keep(this.options.keepFailedSeconds),
        }),
      );
    } finally {
      // Best effort: a reservation left behind lapses after CLAIM_TTL_MS.
      await withTimeout(releaseId(client, keys, job.id), OPERATION_MS).catch(() => undefined);
    }
  }

  /** Jobs waiting and running over the whole cluster. */
  async counts(): Promise<QueueCounts> {
    const { client, queue } = this.open();
    await this.guard(this.ready(client));
    const counts = await this.guard(queue.getJobCounts("wait", "delayed", "prioritized", "active"));
    const n = (state: string) => counts[state] ?? 0;
    return { waiting: n("wait") + n("delayed") + n("prioritized"), active: n("active") };
  }

  /** Closes the BullMQ queue and the connection, bounded even when Redis is gone. */
  async close(): Promise<void> {
    this.closed = true;
    const opened = this.opened;
    if (!opened) return;
    // The queue does not own the shared client, so this only detaches BullMQ's listeners.
    await withTimeout(opened.queue.close(), 2_000).catch(() => undefined);
    await closeClient(opened.client, 2_000);
  }

  private open(): { client: Redis; queue: Queue<StoredJob> } {
    // Never (re)open after close: nobody would close that connection.
    if (this.closed) throw shuttingDown();
    if (this.opened) return this.opened;
    const { connection, queueName, prefix } = this.options;
    const client = producerClient(connection, `${prefix}:${queueName}:producer`);
    watchClient(client, "producer", this.logger);
    // skipVersionCheck: BullMQ's version probe (INFO) would reject for good on a connection that fails fast.
    const queue = new Queue<StoredJob>(queueName, { connection: client, prefix, skipVersionCheck: true });
    queue.on("error", () => undefined); // reported once per outage by watchClient
    this.opened = { client, queue };
    return this.opened;
  }

  private ready(client: Redis): Promise<void> {
    if (client.status === "ready") return Promise.resolve();
    this.connecting ??= untilReady(client, FIRST_CONNECT_MS).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private claimKeys(queue: Queue<StoredJob>, id: string): ClaimKeys {
    const keys = queue.keys;
    return {
      adding: queue.toKey("renderkit.adding"),
      job: `${keys[""]}${id}`,
      jobPrefix: keys[""] as string,
      completed: keys.completed as string,
      failed: keys.failed as string,
      wait: keys.wait as string,
      delayed: keys.delayed as string,
      prioritized: keys.prioritized as string,
    };
  }

  /** Removes a finished job kept for inspection, so BullMQ does not silently keep the old one instead of adding. */
  private async removeFinished(client: Redis, queue: Queue<StoredJob>, keys: ClaimKeys, id: string): Promise<void> {
    const removed = await queue.remove(id);
    if (removed !== 1 && (await client.exists(keys.job)) === 1) {
      throw new RenderError("InvalidOptions", `A render with id ${id} is already queued`);
    }
  }

  /** Bounds a Redis operation and turns its failure into a retryable `ServiceUnavailable`. */
  private async guard<T>(operation: Promise<T>): Promise<T> {
    try {
      return await withTimeout(operation, OPERATION_MS);
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** BullMQ's retention for finished jobs: `true` removes at once. */
function keep(seconds: number): true | { age: number } {
  return seconds === 0 ? true : { age: seconds };
}
