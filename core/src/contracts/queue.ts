/** A unit of work held by a queue. `data` must survive `JSON.stringify`. */
export interface QueueJob<T = unknown> {
  /** Unique id (the render id). Adding an id twice is refused. */
  id: string;
  data: T;
  /** 1 on first delivery; durable queues raise it when they redeliver after a crash. */
  attempt: number;
  /** When the job was added (epoch ms). */
  enqueuedAt: number;
  /**
   * True when a client waits for the job on an open connection (a sync render, a render link):
   * the answer is the promise, and a power cut would end that connection too, so a durable queue
   * may store the job without flushing it to disk. Not stored with the job.
   */
  waited?: boolean;
}

/**
 * Runs one job. Throwing marks the job done-with-error; queues do not retry on their own, except
 * for `JobNotDone`.
 */
export type JobHandler<T = unknown> = (job: QueueJob<T>, signal: AbortSignal) => Promise<void>;

/**
 * Thrown by a handler whose job is not done and must run again: its end could not be recorded
 * (the shared state was unreachable), so completing it would lose the render. Every queue hands
 * the job out again after about `retryInMs`, one attempt further; a durable queue keeps it across
 * a restart meanwhile.
 */
export class JobNotDone extends Error {
  override readonly name = "JobNotDone";

  constructor(
    message: string,
    readonly retryInMs = 5_000,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Counts for health checks and back-pressure. */
export interface QueueCounts {
  waiting: number;
  active: number;
}

/**
 * Delivers jobs to one handler with bounded concurrency. Durable queues keep waiting and
 * running jobs across restarts and redeliver them (at-least-once).
 */
export interface Queue {
  /** Short name for logs (`memory`, `fs`, `bullmq`). */
  readonly name: string;
  /**
   * True when jobs outlive the process: a running job whose signal `close()` aborted is kept and
   * handed out again on the next start (so the renderer does not report it as failed).
   */
  readonly durable?: boolean;
  /** Starts delivering jobs to `handler`, at most `concurrency` at a time. Called once. */
  start(handler: JobHandler, options: { concurrency: number }): Promise<void>;
  /** Adds a job; resolves once the queue holds it. Throws `ServiceUnavailable` when full or closed. */
  add(job: QueueJob): Promise<void>;
  /** Current numbers of waiting and running jobs. */
  counts(): Promise<QueueCounts>;
  /**
   * Stops delivering. Running jobs get `timeoutMs` to finish, then their signal aborts.
   * Waiting jobs, and with `durable` the aborted running ones, stay stored; otherwise they are dropped.
   */
  close(timeoutMs?: number): Promise<void>;
}
