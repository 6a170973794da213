import { EventEmitter } from "node:events";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type FinalRenderEvent,
  isSafeId,
  type Logger,
  type RenderEvent,
  type RenderResult,
  type RenderStatus,
} from "@renderkit/core";

/** What the server remembers of a render: enough for the status endpoint and the redirect path. */
export interface RenderRecord {
  renderId: string;
  projectId: string;
  status: RenderStatus;
  createdAt: number;
  attempt: number;
  /** Public result fields, present once `succeeded`. */
  result?: Omit<RenderResult, "path" | "key" | "renderId"> & { key: string };
  /** Human reason and code, present once `failed`. */
  reason?: string;
  code?: string;
  /** When the record (and its render) may be forgotten. */
  expiresAt: number;
  /** Seconds a sync request for this render waits before redirecting. */
  redirectAfter?: number;
  /** When the render's work started and ended (epoch ms), once it ended. */
  startTime?: number;
  endTime?: number;
}

const TERMINAL = new Set<RenderStatus>(["succeeded", "failed"]);
/** How long an ended record stays in memory after its last change. */
const MEMORY_MS = 10 * 60_000;

/**
 * Render records kept in memory and in `<dir>/<renderId>.json`, updated from the renderer's
 * events, so status lookups survive restarts. Waiters are woken when a render ends.
 */
export class RenderStore {
  private readonly records = new Map<string, RenderRecord>();
  private readonly events = new EventEmitter();
  private writes = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
  }

  /**
   * Applies a renderer event (subscribe with `renderer.on(e => store.apply(e))`); resolves once
   * the record is on disk, which the renderer waits for (a 201 is only sent for a recorded render).
   */
  apply(event: RenderEvent): Promise<void> {
    const projectId = typeof event.meta?.projectId === "string" ? event.meta.projectId : "";
    const now = Date.now();
    const record: RenderRecord = this.records.get(event.renderId) ?? {
      renderId: event.renderId,
      projectId,
      status: "created",
      createdAt: now,
      attempt: 1,
      expiresAt: now + this.ttlMs,
    };
    switch (event.type) {
      case "render.created":
        if (typeof event.meta?.redirectAfter === "number") record.redirectAfter = event.meta.redirectAfter;
        break;
      case "render.started":
        record.attempt = event.attempt;
        if (event.attempt > 1 && !TERMINAL.has(record.status)) record.status = "retrying";
        break;
      case "render.retrying":
        record.status = "retrying";
        record.attempt = event.attempt;
        break;
      case "render.succeeded": {
        const { path: _path, renderId: _id, ...result } = event.result;
        record.status = "succeeded";
        record.result = result;
        record.startTime = event.startTime;
        record.endTime = event.endTime;
        break;
      }
      case "render.failed":
        record.status = "failed";
        record.reason = event.reason;
        record.code = event.code;
        record.startTime = event.startTime;
        record.endTime = event.endTime;
        break;
    }
    this.records.set(record.renderId, record);
    const written = this.persist(record);
    if (TERMINAL.has(record.status)) {
      this.events.emit(record.renderId, record);
      this.forgetLater(record.renderId);
    }
    return written;
  }

  /** Ended records stay on disk; memory keeps them only while clients are likely to poll. */
  private forgetLater(renderId: string): void {
    setTimeout(() => this.records.delete(renderId), MEMORY_MS).unref();
  }

  /** Deletes record files past their expiry (run hourly by the server). */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      const file = join(this.dir, name);
      try {
        const record = JSON.parse(await readFile(file, "utf8")) as RenderRecord;
        if (record.expiresAt <= now) {
          await rm(file, { force: true });
          this.records.delete(record.renderId);
          removed++;
        }
      } catch {
        // A record being written right now, or a broken file: left for the next sweep.
      }
    }
    return removed;
  }

  /** Writes the record after every earlier write (in order); resolves once this one is done. */
  private persist(record: RenderRecord): Promise<void> {
    const text = JSON.stringify(record);
    const file = join(this.dir, `${record.renderId}.json`);
    this.writes = this.writes
      .then(async () => {
        await mkdir(this.dir, { recursive: true });
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      })
      .catch((error: unknown) =>
        this.logger.error("saving a render record failed", { renderId: record.renderId, error: String(error) }),
      );
    return this.writes;
  }

  /** The record of `renderId`, from memory or disk; undefined when unknown or expired. */
  async get(renderId: string): Promise<RenderRecord | undefined> {
    if (!isSafeId(renderId)) return undefined;
    let record = this.records.get(renderId);
    if (!record) {
      try {
        record = JSON.parse(await readFile(join(this.dir, `${renderId}.json`), "utf8")) as RenderRecord;
        this.records.set(renderId, record);
        if (TERMINAL.has(record.status)) this.forgetLater(renderId);
      } catch {
        return undefined;
      }
    }
    return record.expiresAt > Date.now() ? record : undefined;
  }

  /**
   * The final event of a render whose end is on record, rebuilt from the record (a redelivered
   * job must not run twice, and its notifiers are told the outcome clients already see).
   */
  async finalEvent(renderId: string): Promise<FinalRenderEvent | undefined> {
    const record = await this.get(renderId);
    if (!record || !TERMINAL.has(record.status)) return undefined;
    const startTime = record.startTime ?? record.createdAt;
    const endTime = record.endTime ?? startTime;
    if (record.status === "failed") {
      const code = record.code ?? "EngineResponseNotOkError";
      return { type: "render.failed", renderId, code, reason: record.reason ?? "The render failed", startTime, endTime };
    }
    const result = { ...record.result, renderId } as RenderResult;
    return { type: "render.succeeded", renderId, result, startTime, endTime };
  }

  /** Resolves with the record once the render ended, or with its current state after `timeoutMs`. */
  async wait(renderId: string, timeoutMs: number, signal?: AbortSignal): Promise<RenderRecord | undefined> {
    const current = await this.get(renderId);
    if (!current || TERMINAL.has(current.status) || signal?.aborted) return current;
    return new Promise((resolve) => {
      const done = (record?: RenderRecord) => {
        clearTimeout(timer);
        this.events.off(renderId, done);
        signal?.removeEventListener("abort", onAbort);
        resolve(record ?? this.records.get(renderId));
      };
      const onAbort = () => done();
      const timer = setTimeout(done, timeoutMs);
      this.events.on(renderId, done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Waits for pending writes (shutdown). */
  flush(): Promise<void> {
    return this.writes;
  }
}
