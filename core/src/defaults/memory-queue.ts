import { type JobHandler, JobNotDone, type Queue, type QueueCounts, type QueueJob } from "../contracts/queue.js";
import { RenderError } from "../errors.js";
import { withTimeout } from "../util/timeout.js";

/**
 * The built-in in-process queue: FIFO, bounded, `concurrency` jobs at a time.
 * Not durable: jobs waiting at close are dropped (the server's durable queue keeps them).
 */
export class MemoryQueue implements Queue {
  readonly name = "memory";
  readonly durable = false;
  private handler: JobHandler | undefined;
  private concurrency = 1;
  private readonly waiting: QueueJob[] = [];
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly ids = new Set<string>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly maxWaiting = 100) {}

  async start(handler: JobHandler, options: { concurrency: number }): Promise<void> {
    if (this.handler) throw new Error("MemoryQueue.start was called twice");
    this.handler = handler;
    this.concurrency = Math.max(1, options.concurrency);
    this.pump();
  }

  async add(job: QueueJob): Promise<void> {
    if (this.closed) throw new RenderError("ServiceUnavailable", "The render queue is shutting down; try again later");
    if (this.ids.has(job.id)) throw new RenderError("InvalidOptions", `A render with id ${job.id} is already queued`);
    if (this.waiting.length >= this.maxWaiting) {
      throw new RenderError("ServiceUnavailable", "The render queue is full; try again later", { retryable: true });
    }
    this.ids.add(job.id);
    this.waiting.push(job);
    this.pump();
  }

  async counts(): Promise<QueueCounts> {
    return { waiting: this.waiting.length, active: this.active.size };
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    while (!this.closed && this.active.size < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift() as QueueJob;
      const controller = new AbortController();
      // A macrotask later, so `add()` resolves (and the renderer reports `created`) before the job starts.
      let again: JobNotDone | undefined;
      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => handler(job, controller.signal))
        .catch((error: unknown) => {
          if (error instanceof JobNotDone) again = error;
        })
        .finally(() => {
          this.active.delete(job.id);
          if (again && !this.closed) this.later(job, again.retryInMs);
          else this.ids.delete(job.id);
          this.pump();
        });
      this.active.set(job.id, { controller, done });
    }
  }

  /** A job whose handler threw `JobNotDone` waits again, one attempt further (its id stays held). */
  private later(job: QueueJob, delayMs: number): void {
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      if (this.closed) return void this.ids.delete(job.id);
      this.waiting.push({ ...job, attempt: job.attempt + 1 });
      this.pump();
    }, delayMs);
    this.retries.add(timer);
  }

  async close(timeoutMs = 30_000): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) this.ids.delete(job.id);
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    const running = [...this.active.values()];
    const all = Promise.all(running.map((r) => r.done));
    await withTimeout(all, timeoutMs).catch(async () => {
      for (const r of running) r.controller.abort(new RenderError("TimedOutError", "The render was stopped by shutdown"));
      await withTimeout(all, 5_000).catch(() => undefined);
    });
  }
}
