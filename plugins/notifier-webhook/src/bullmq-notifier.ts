import { ConsoleLogger, type Logger, type Notifier, type RenderEvent, withTimeout } from "@renderkit/core";
import type { Queue } from "bullmq";
import { isFinalEvent, webhookBody } from "./body.js";
import { BACKOFF_TYPE, type DeliveryJobData, jobIdFor, WEBHOOK_QUEUE } from "./bullmq-delivery.js";
import { DeliveryWorker } from "./bullmq-worker.js";
import {
  type ResolvedRedisOptions,
  resolveRedis,
  resolveTuning,
  type WebhookOptions,
  type WebhookRedisOptions,
  type WebhookTuning,
} from "./options.js";
import { RedisClients } from "./redis-clients.js";
import type { Sender } from "./send.js";
import type { DeliveryState } from "./store.js";

/** Bound of one Redis step (adding a job, reading a state, each close step): Redis down must not hang us. */
const REDIS_STEP_MS = 3_000;
/** Redis errors repeat on every reconnection attempt; one line per source per interval is enough. */
const ERROR_LOG_EVERY_MS = 30_000;

/** Options of `new BullMqWebhookNotifier()`. */
export interface BullMqWebhookNotifierOptions extends WebhookOptions {
  /** The Redis that holds the `webhooks` queue, shared by every API and worker node. */
  redis: WebhookRedisOptions;
  /** Run a delivery worker in this process. Default true; API-only nodes pass false and only enqueue. */
  deliver?: boolean;
  /** Default: JSON lines on stderr (`ConsoleLogger`). */
  logger?: Logger;
}

interface Running {
  clients: RedisClients;
  queue: Queue;
  worker?: DeliveryWorker;
}

/**
 * Webhook deliveries kept in Redis as BullMQ jobs (queue `webhooks`), so API and worker nodes on
 * several machines share them. The job id is the render id: BullMQ does not add a job whose id it
 * holds, so a render notified twice (a redelivered render job, another node) is delivered once, as
 * long as the finished job is kept (`retainMs`). Attempts and their delays are BullMQ's (attempts =
 * schedule length + 1, the schedule's delays with jitter); a worker that dies mid-POST loses its
 * lock and another worker delivers again: at-least-once on the wire, receivers dedupe by render id.
 */
export class BullMqWebhookNotifier implements Notifier {
  readonly name = "webhook";
  /** Key prefix of the `webhooks` queue. */
  readonly prefix: string;
  /** Whether this process runs a delivery worker. */
  readonly delivers: boolean;
  private readonly tuning: WebhookTuning;
  private readonly redis: ResolvedRedisOptions;
  private readonly logger: Logger;
  private readonly sender: Omit<Sender, "signal">;
  private readonly lastErrorLog = new Map<string, number>();
  private starting: Promise<Running> | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  constructor(options: BullMqWebhookNotifierOptions) {
    this.tuning = resolveTuning(options);
    this.redis = resolveRedis(options.redis);
    this.prefix = this.redis.prefix;
    this.delivers = options.deliver !== false;
    this.logger = options.logger ?? new ConsoleLogger();
    this.sender = {
      secretFor: options.secretFor,
      allowPrivate: options.allowPrivate ?? false,
      lookup: options.lookup,
      timeoutMs: this.tuning.timeoutMs,
      onAttempt: options.onAttempt,
    };
  }

  /**
   * Loads `bullmq` and `ioredis`, opens the queue and, when delivering, the worker (which resumes
   * whatever deliveries Redis holds). Does not wait for Redis to answer. Idempotent; a failed
   * start is retried by the next call. `notify()` and `state()` call it.
   */
  async start(): Promise<void> {
    await this.running();
  }

  private running(): Promise<Running> {
    if (this.closed) return Promise.reject(new Error("the webhook notifier is closed"));
    this.starting ??= this.open().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async open(): Promise<Running> {
    let loaded: [typeof import("bullmq"), RedisClients];
    try {
      loaded = await Promise.all([import("bullmq"), RedisClients.load(this.redis.url)]);
    } catch (error) {
      throw new Error(`webhookNotifier: the redis option needs the packages bullmq and ioredis: ${String(error)}`);
    }
    const [bullmq, clients] = loaded;
    try {
      const queue = new bullmq.Queue(WEBHOOK_QUEUE, { connection: clients.producer(), prefix: this.prefix });
      queue.on("error", (error) => this.redisError("queue", error));
      if (!this.delivers) return { clients, queue };
      const worker = new DeliveryWorker({
        bullmq,
        connection: clients.worker(),
        redis: this.redis,
        tuning: this.tuning,
        sender: this.sender,
        logger: this.logger,
        onError: (error) => this.redisError("worker", error),
        stepMs: REDIS_STEP_MS,
      });
      return { clients, queue, worker };
    } catch (error) {
      await clients.close(REDIS_STEP_MS);
      throw error;
    }
  }

  private redisError(source: string, error: Error): void {
    const now = Date.now();
    if (this.closed || now - (this.lastErrorLog.get(source) ?? 0) < ERROR_LOG_EVERY_MS) return;
    this.lastErrorLog.set(source, now);
    this.logger.error("webhook queue: Redis error", { source, error: String(error) });
  }

  /**
   * Adds a delivery job for a final event carrying `job.webhookUrl` (job id = render id, data
   * `{ renderId, url, projectId, body }`) and resolves once Redis holds it. A render whose job Redis
   * already holds (pending or finished within `retainMs`) is not added again. Other events are
   * ignored. Rejects, within seconds, only when Redis cannot store the job.
   */
  async notify(event: RenderEvent): Promise<void> {
    if (!isFinalEvent(event)) return;
    // Checked, not trusted: jobs come back from a queue's JSON (and from older versions).
    const url = event.job?.webhookUrl;
    if (typeof url !== "string" || url === "") return;
    const projectId = typeof event.job?.projectId === "string" ? event.job.projectId : undefined;
    const data: DeliveryJobData = { renderId: event.renderId, url, projectId, body: webhookBody(event) };
    const { queue } = await this.running();
    const retain = { age: Math.ceil(this.tuning.retainMs / 1_000) };
    const adding = queue.add(event.type, data, {
      jobId: jobIdFor(event.renderId),
      attempts: this.tuning.schedule.length + 1,
      backoff: { type: BACKOFF_TYPE },
      // Finished jobs are kept so that a late duplicate finds the id taken (BullMQ prunes them when
      // later jobs finish, so they may outlive retainMs, never fall short of it).
      removeOnComplete: retain,
      removeOnFail: retain,
    });
    await withTimeout(
      adding,
      REDIS_STEP_MS,
      () => new Error(`Redis did not store the webhook delivery within ${REDIS_STEP_MS} ms`),
    );
  }

  /** Where a render's delivery stands, from its job (`undefined`: no job, or pruned after `retainMs`). */
  async state(renderId: string): Promise<DeliveryState | undefined> {
    const { queue } = await this.running();
    const state = await withTimeout(queue.getJobState(jobIdFor(renderId)), REDIS_STEP_MS);
    if (state === "completed") return "delivered";
    if (state === "failed") return "failed";
    return state === "unknown" ? undefined : "pending";
  }

  /**
   * Stops the worker: no new attempts, posts in flight get up to 5 s to finish and be recorded,
   * then they are cut and their jobs handed back uncounted. Closes the queue and every Redis
   * connection; each step is bounded, so it returns even when Redis is gone.
   */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const running = await this.starting?.catch(() => undefined);
    if (!running) return;
    const { clients, queue, worker } = running;
    await worker?.stop(clients.ready());
    await withTimeout(queue.close(), REDIS_STEP_MS).catch(() => undefined);
    await clients.close(REDIS_STEP_MS);
  }
}
