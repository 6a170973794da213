import { ConsoleLogger, type JobHandler, type Logger, type Queue, type QueueCounts, type QueueJob } from "@renderkit/core";
import { Consumer } from "./consumer.js";
import { shuttingDown } from "./errors.js";
import { type BullMqQueueOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { Producer } from "./producer.js";
import { checkJobId } from "./stored-job.js";

/**
 * The render queue on BullMQ and Redis, shared by many processes: API nodes only `add`, worker
 * nodes also `start`. Jobs outlive every process (`durable`): a job whose worker died comes back
 * after the stall check, and one cut short by `close()` goes back at once; either way one attempt
 * further. Connections open on first use; options are checked by the constructor.
 */
export class BullMqQueue implements Queue {
  /** Short name for logs. */
  readonly name = "bullmq";
  /** Jobs survive restarts: an aborted running job is put back, not dropped. */
  readonly durable = true;
  /** The options in force, defaults filled in. */
  readonly options: Readonly<ResolvedOptions>;
  private readonly logger: Logger;
  private readonly producer: Producer;
  private consumer: Consumer | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: BullMqQueueOptions) {
    this.options = resolveOptions(options);
    this.logger = this.options.logger ?? new ConsoleLogger();
    this.producer = new Producer(this.options, this.logger);
  }

  /** Starts a BullMQ worker that runs up to `concurrency` jobs of this process at once. Called once, on worker nodes only. */
  async start(handler: JobHandler, options: { concurrency: number }): Promise<void> {
    if (this.consumer) throw new Error("BullMqQueue.start was called twice");
    if (this.closing) throw shuttingDown();
    const wanted = Math.floor(options.concurrency);
    const concurrency = Number.isFinite(wanted) && wanted >= 1 ? wanted : 1;
    this.consumer = new Consumer(this.options, this.logger, handler, concurrency);
  }

  /**
   * Resolves once Redis holds the job. Refuses an id the queue holds (`InvalidOptions`); throws a
   * retryable `ServiceUnavailable` when `maxWaiting` jobs wait cluster-wide, after `close()`, and
   * at once when Redis is unreachable.
   */
  async add(job: QueueJob): Promise<void> {
    if (this.closing) throw shuttingDown();
    checkJobId(job?.id);
    await this.producer.add(job);
  }

  /** Waiting (wait, delayed, prioritized) and running jobs over the whole cluster. */
  counts(): Promise<QueueCounts> {
    return this.producer.counts();
  }

  /**
   * Stops taking jobs at once. Running jobs get `timeoutMs`, then their signal aborts with
   * `TimedOutError` and they go back to the queue, to run again elsewhere one attempt further.
   * Closes every connection; returns also when Redis is gone.
   */
  close(timeoutMs = 30_000): Promise<void> {
    this.closing ??= (async () => {
      await this.consumer?.stop(Math.max(0, timeoutMs));
      await this.producer.close();
    })();
    return this.closing;
  }
}
