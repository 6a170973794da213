import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { type JobHandler, JobNotDone, type Queue, type QueueCounts, type QueueJob } from "../contracts/queue.js";
import { RenderError } from "../errors.js";
import { isSafeId } from "../util/ids.js";
import { withTimeout } from "../util/timeout.js";
import { writeAtomic } from "../util/write-atomic.js";

/** Ids become file names, so they are restricted to characters safe on every file system. */
const STAMP = /^(\d{15})-/;

export interface FsQueueOptions {
  /** Most jobs waiting at once; `add` beyond it throws a retryable `ServiceUnavailable`. Default 100. */
  maxWaiting?: number;
}

interface Entry {
  /** File name in `waiting/` or `active/`; names sort in enqueue order. */
  name: string;
  job: QueueJob;
}

const shuttingDown = () => new RenderError("ServiceUnavailable", "The render queue is shutting down; try again later");

/** Reads a job file; undefined when it is not a job (truncated, edited by hand, foreign). */
function parseJob(text: string): QueueJob | undefined {
  try {
    const value = JSON.parse(text) as Partial<QueueJob> | null;
    const { id, attempt, enqueuedAt } = value ?? {};
    if (typeof id !== "string" || !isSafeId(id) || !Number.isInteger(attempt) || typeof enqueuedAt !== "number") return undefined;
    return { id, data: value?.data, attempt: attempt as number, enqueuedAt };
  } catch {
    return undefined;
  }
}

/**
 * The durable in-process queue (the server's default): one JSON file per job under
 * `<dir>/waiting/` and `<dir>/active/`. `add` resolves only once the file is on disk, and a job
 * moves to `active/` before its handler runs, so a job survives a kill at any point: the next
 * `start` redelivers running jobs first (with `attempt + 1`), then the waiting ones, in enqueue
 * order (at-least-once). One process per directory: two processes sharing it would run jobs twice.
 */
export class FsQueue implements Queue {
  readonly name = "fs";
  readonly durable = true;
  private readonly maxWaiting: number;
  private handler: JobHandler | undefined;
  private concurrency = 1;
  private readonly waiting: Entry[] = [];
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Ids waiting, running or being written: the duplicate check. */
  private readonly ids = new Set<string>();
  private writing = 0;
  /** Jobs waiting to run again after `JobNotDone`. */
  private readonly retries = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Set when close returns: handlers settling later leave their file for the next start. */
  private detached = false;
  private loaded: Promise<void> | undefined;
  private lastStamp = 0;
  private seq = 0;

  /** `dir` is created when missing; it holds `waiting/`, `active/` and `broken/`. */
  constructor(
    readonly dir: string,
    options: FsQueueOptions = {},
  ) {
    this.maxWaiting = options.maxWaiting ?? 100;
  }

  /** Recovers the directory (once), then delivers jobs to `handler`, `concurrency` at a time. */
  async start(handler: JobHandler, options: { concurrency: number }): Promise<void> {
    if (this.handler) throw new Error("FsQueue.start was called twice");
    this.handler = handler;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    await this.load();
    this.pump();
  }

  /**
   * Stores the job durably (flushed to disk unless a client waits for it: `QueueJob.waited`), then
   * schedules it. Refuses bad or duplicate ids, and adds when full or closed.
   */
  async add(job: QueueJob): Promise<void> {
    if (this.closed) throw shuttingDown();
    if (!isSafeId(job.id)) throw new RenderError("InvalidOptions", "A queue job id must be 1 to 128 of A-Z a-z 0-9 _ -");
    let text: string;
    try {
      text = JSON.stringify({ id: job.id, data: job.data, attempt: job.attempt, enqueuedAt: job.enqueuedAt });
    } catch (cause) {
      throw new RenderError("InvalidOptions", "The job data cannot be stored as JSON", { cause });
    }
    await this.load();
    // Checked again after the await: close or another add may have happened meanwhile.
    if (this.closed) throw shuttingDown();
    if (this.ids.has(job.id)) throw new RenderError("InvalidOptions", `A render with id ${job.id} is already queued`);
    if (this.waiting.length + this.writing >= this.maxWaiting) {
      throw new RenderError("ServiceUnavailable", "The render queue is full; try again later", { retryable: true });
    }
    // Delivered as parsed back, so a job looks the same before and after a restart.
    const entry: Entry = { name: this.nextName(job.id), job: JSON.parse(text) as QueueJob };
    this.ids.add(job.id);
    this.writing++;
    try {
      // A job a client waits for is not flushed to disk (`QueueJob.waited`): ~5-15 ms a sync render.
      await writeAtomic(join(this.dir, "waiting", entry.name), text, undefined, { flush: !job.waited });
    } catch (cause) {
      this.ids.delete(job.id);
      throw new RenderError("ServiceUnavailable", "The render queue could not store the job", { cause, retryable: true });
    } finally {
      this.writing--;
    }
    // Concurrent adds may finish writing out of order; keep the list in name (enqueue) order.
    let at = this.waiting.length;
    while (at > 0 && (this.waiting[at - 1] as Entry).name > entry.name) at--;
    this.waiting.splice(at, 0, entry);
    this.pump();
  }

  /** Jobs waiting and running in this process (after loading the directory). */
  async counts(): Promise<QueueCounts> {
    await this.load();
    return { waiting: this.waiting.length, active: this.active.size };
  }

  /**
   * Stops delivering; waiting jobs stay on disk. Running jobs get `timeoutMs`, then their signal
   * aborts with `TimedOutError`; an aborted job, and one still running when close returns, keeps
   * its file in `active/` and is redelivered by the next start (one attempt further).
   */
  async close(timeoutMs = 30_000): Promise<void> {
    this.closed = true;
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    const running = [...this.active.values()];
    const all = Promise.all(running.map((r) => r.done));
    await withTimeout(all, timeoutMs).catch(async () => {
      for (const r of running) r.controller.abort(new RenderError("TimedOutError", "The render was stopped by shutdown"));
      await withTimeout(all, 5_000).catch(() => undefined);
    });
    this.detached = true;
  }

  /** Names sort in enqueue order even when the clock steps back or a restart reuses a millisecond. */
  private nextName(id: string): string {
    const stamp = Math.max(Date.now(), this.lastStamp);
    this.seq = stamp === this.lastStamp ? this.seq + 1 : 0;
    this.lastStamp = stamp;
    return `${String(stamp).padStart(15, "0")}-${String(this.seq).padStart(6, "0")}-${id}.json`;
  }

  private load(): Promise<void> {
    this.loaded ??= this.recover().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /** Jobs found in `active/` were running when a process died: they go first, one attempt further. */
  private async recover(): Promise<void> {
    await mkdir(join(this.dir, "waiting"), { recursive: true });
    await mkdir(join(this.dir, "active"), { recursive: true });
    const recovered: Entry[] = [];
    for (const { name, job } of await this.scan("active")) {
      const again = { ...job, attempt: job.attempt + 1 };
      // Write before removing: a crash in between leaves both, and the next recovery redoes the same write.
      await writeAtomic(join(this.dir, "waiting", name), JSON.stringify(again));
      await rm(join(this.dir, "active", name), { force: true });
      recovered.push({ name, job: again });
    }
    const names = new Set(recovered.map((e) => e.name));
    const waiting = (await this.scan("waiting")).filter((e) => !names.has(e.name));
    for (const entry of [...recovered, ...waiting]) {
      if (this.ids.has(entry.job.id)) await this.setAside("waiting", entry.name);
      else {
        this.ids.add(entry.job.id);
        this.waiting.push(entry);
      }
    }
  }

  /** Job files of one folder in name order. Partial writes are removed; unreadable files go to `broken/`. */
  private async scan(folder: "waiting" | "active"): Promise<Entry[]> {
    const entries: Entry[] = [];
    const files = (await readdir(join(this.dir, folder), { withFileTypes: true })).filter((f) => f.isFile());
    for (const name of files.map((f) => f.name).sort()) {
      const path = join(this.dir, folder, name);
      // A temp file is a write cut short: its add never resolved, so nobody was promised that job.
      if (name.endsWith(".tmp")) await rm(path, { force: true });
      if (!name.endsWith(".json")) continue;
      const job = parseJob(await readFile(path, "utf8").catch(() => ""));
      if (!job) {
        await this.setAside(folder, name);
        continue;
      }
      const stamp = STAMP.exec(name);
      if (stamp) this.lastStamp = Math.max(this.lastStamp, Number(stamp[1]) + 1);
      entries.push({ name, job });
    }
    return entries;
  }

  /** Keeps a file we cannot run for a human to look at, out of the way of the next start. */
  private async setAside(folder: string, name: string): Promise<void> {
    await mkdir(join(this.dir, "broken"), { recursive: true });
    await rename(join(this.dir, folder, name), join(this.dir, "broken", `${folder}-${name}`)).catch(() => undefined);
  }

  private pump(): void {
    const handler = this.handler;
    while (handler && !this.closed && this.active.size < this.concurrency) {
      const entry = this.waiting.shift();
      if (!entry) return;
      const controller = new AbortController();
      this.active.set(entry.job.id, { controller, done: this.run(entry, handler, controller.signal) });
    }
  }

  /** Runs one job; never rejects (handler errors are the handler's to report). */
  private async run({ name, job }: Entry, handler: JobHandler, signal: AbortSignal): Promise<void> {
    let file = join(this.dir, "waiting", name);
    // Moved before the handler runs, so a crash from here on counts as a failed attempt. Should the
    // move fail, the job still runs; a crash would then redeliver it as a first attempt. Moves are
    // not fsynced: after a power loss the job is in one folder or the other, both safe.
    await rename(file, join(this.dir, "active", name)).then(
      () => (file = join(this.dir, "active", name)),
      () => undefined,
    );
    let again: JobNotDone | undefined;
    try {
      await handler(job, signal);
    } catch (error) {
      // Throwing marks the job done-with-error (contract): no retry here, except JobNotDone.
      if (error instanceof JobNotDone) again = error;
    }
    this.active.delete(job.id);
    if (again) {
      // Its file stays in active/ (a restart meanwhile redelivers it); it runs again here later.
      this.retry({ name, job }, file, again.retryInMs);
      this.pump();
      return;
    }
    // A job cut short by close() is not done: its file stays for the next start.
    if (!this.detached && !signal.aborted) await rm(file, { force: true }).catch(() => undefined);
    this.ids.delete(job.id);
    this.pump();
  }

  /** Puts a job whose handler threw `JobNotDone` back in `waiting/`, one attempt further, after `delayMs`. */
  private retry(entry: Entry, file: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      if (this.closed) return; // the file in active/ is redelivered by the next start
      const again: Entry = { name: entry.name, job: { ...entry.job, attempt: entry.job.attempt + 1 } };
      void writeAtomic(join(this.dir, "waiting", entry.name), JSON.stringify(again.job))
        .then(() => rm(file, { force: true }))
        .then(
          () => {
            this.waiting.unshift(again);
            this.pump();
          },
          // Cannot move it: it stays in active/ and runs again at the next start.
          () => undefined,
        );
    }, delayMs);
    timer.unref();
    this.retries.add(timer);
  }
}
