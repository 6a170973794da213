import { EventEmitter } from "node:events";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FinalRenderEvent, Logger, RenderEvent } from "@renderkit/core";
import { isSafeId, withDirectory } from "@renderkit/core/internal";
import { endFields, finalEventOf, newRecord, type RenderRecord, type RenderRecords, TERMINAL } from "./records.js";

export type { RenderRecord } from "./records.js";

/** How long an ended record stays in memory after its last change. */
const MEMORY_MS = 10 * 60_000;

/**
 * Render records of a single-process server: in memory and in `<dir>/<renderId>.json`, updated
 * from the renderer's events, so status lookups survive restarts. Waiters are woken when a
 * render ends.
 */
export class RenderStore implements RenderRecords {
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
   * Applies a renderer event (`createRenderer({ record: (e) => store.apply(e) })`); resolves once
   * the record is on disk, which the renderer waits for (a 201 is only sent for a recorded render).
   */
  async apply(event: RenderEvent): Promise<void> {
    // A record no longer in memory is read back first, so a late event cannot overwrite its end.
    const known =
      this.records.get(event.renderId) ?? (event.type === "render.created" ? undefined : await this.get(event.renderId));
    const record: RenderRecord = known ?? newRecord(event, this.ttlMs);
    // The first end stands: a second final event for the same render changes nothing.
    if (TERMINAL.has(record.status)) return this.writes;
    const before = known && JSON.stringify(known);
    switch (event.type) {
      case "render.started":
        record.attempt = event.attempt;
        if (event.attempt > 1) record.status = "retrying";
        break;
      case "render.retrying":
        record.status = "retrying";
        record.attempt = event.attempt;
        break;
      case "render.succeeded":
      case "render.failed":
        Object.assign(record, endFields(event));
        break;
    }
    this.records.set(record.renderId, record);
    // Nothing to write when the event changed nothing (a first attempt's start: the record
    // already says attempt 1): the file on disk says the same.
    if (before !== undefined && JSON.stringify(record) === before) return this.writes;
    const written = this.persist(record);
    if (TERMINAL.has(record.status)) {
      // Waiters (a sync answer) hear of the end once it is on disk: a crash right after the
      // answer must not leave the record behind it.
      void written.then(() => this.events.emit(record.renderId, record));
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
        await withDirectory(this.dir, () => writeFile(`${file}.tmp`, text));
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
    return finalEventOf(await this.get(renderId));
  }

  /** Resolves with the record once the render ended, or with its current state after `timeoutMs`. */
  async wait(renderId: string, timeoutMs: number, signal?: AbortSignal): Promise<RenderRecord | undefined> {
    const current = await this.get(renderId);
    // An end known in memory may still be on its way to disk: answered once it is there.
    if (current && TERMINAL.has(current.status)) await this.writes;
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
