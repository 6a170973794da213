// A third-party notifier plugin: every render's end (`render.succeeded` / `render.failed`) appended
// as one JSON line to a file, for `tail -f`, a log shipper or a nightly report. It depends on
// @renderkit/core only, as every plugin must, and takes two options.

import { appendFile, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { definePlugin, NOTIFIER } from "@renderkit/core";

/** Lines kept in memory while the file cannot be written; beyond it the oldest are dropped (and logged). */
const MAX_PENDING_LINES = 10_000;
/** Render ids remembered to drop a repeated end (the core re-notifies after a crash or an outage). */
const REMEMBERED_IDS = 10_000;

/**
 * One JSON line for a final event. Only what a reader of the log needs: never the result's local
 * path, storage key or `location` (internal), nor anything the submitter did not mean to share.
 */
export function lineOf(event) {
  const head = { event: event.type, renderId: event.renderId };
  // `job` is the typed data the submitter attached (the server sets `projectId`).
  if (event.job?.projectId !== undefined) head.projectId = event.job.projectId;
  head.at = new Date(event.endTime).toISOString();
  if (event.type === "render.failed")
    return `${JSON.stringify({ ...head, error: { code: event.code, message: event.reason } })}\n`;
  const { renderUrl, size, format, renderTime, queueTime } = event.result;
  return `${JSON.stringify({ ...head, result: { renderUrl, format, size, renderTime, queueTime } })}\n`;
}

/**
 * Appends final events to `file`. Writes go one at a time, each a single append, so lines never
 * interleave; the file is opened per write, so a log rotation that moves it away is followed at
 * once. A write that fails (disk full, directory gone) is not the render's failure: the lines stay
 * in memory and go out with the next write or at `close()`, and only what `close()` cannot write is
 * lost, with an error logged. The core may hand the same end over twice (a job redelivered after a
 * crash or a record outage): a render id seen lately is written once; across a restart it can
 * repeat, so readers de-duplicate by `renderId`.
 */
export class JsonLinesNotifier {
  name = "jsonl";
  #file;
  #failuresOnly;
  #logger;
  #pending = [];
  #seen = new Set();
  #writing = Promise.resolve();

  constructor({ file, failuresOnly = false, logger }) {
    this.#file = file;
    this.#failuresOnly = failuresOnly;
    this.#logger = logger;
  }

  /** Where the lines go (absolute). */
  get file() {
    return this.#file;
  }

  async notify(event) {
    if (event.type !== "render.succeeded" && event.type !== "render.failed") return;
    if (this.#failuresOnly && event.type !== "render.failed") return;
    if (this.#seen.has(event.renderId)) return;
    this.#seen.add(event.renderId);
    // A Set iterates in insertion order: the first id is the oldest.
    if (this.#seen.size > REMEMBERED_IDS) this.#seen.delete(this.#seen.values().next().value);
    this.#pending.push(lineOf(event));
    if (this.#pending.length > MAX_PENDING_LINES) {
      const dropped = this.#pending.splice(0, this.#pending.length - MAX_PENDING_LINES);
      this.#logger?.error("render event log: too many unwritten lines, dropped the oldest", {
        file: this.#file,
        dropped: dropped.length,
      });
    }
    await this.#flush();
  }

  async close() {
    await this.#flush();
    if (this.#pending.length > 0) {
      this.#logger?.error("render event log: lines lost at close", { file: this.#file, lost: this.#pending.length });
      this.#pending = [];
    }
  }

  /** Queues a write of everything pending behind the one in progress. */
  #flush() {
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write() {
    const count = this.#pending.length;
    if (count === 0) return;
    try {
      await mkdir(dirname(this.#file), { recursive: true });
      await appendFile(this.#file, this.#pending.slice(0, count).join(""));
      this.#pending.splice(0, count);
    } catch (error) {
      // Kept for the next write; never thrown: the render itself went fine.
      this.#logger?.error("render event log: append failed, will retry", {
        file: this.#file,
        lines: count,
        error: String(error),
      });
    }
  }
}

/** Checks the options when the factory is called, so a bad config stops the server's start. */
function checkOptions(options) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new Error("options must be an object");
  for (const name of Object.keys(options)) {
    if (name !== "file" && name !== "failuresOnly") throw new Error(`unknown option "${name}" (file, failuresOnly)`);
  }
  if (options.file !== undefined && (typeof options.file !== "string" || options.file.trim() === "")) {
    throw new Error("option file must be a non-empty path");
  }
  if (options.failuresOnly !== undefined && typeof options.failuresOnly !== "boolean") {
    throw new Error("option failuresOnly must be true or false");
  }
}

/**
 * `createRenderer({ plugins: [playwright(), jsonLinesNotifier({ file, failuresOnly })] })`, or in the
 * server's config: `"plugins": [{ "module": "@renderkit/example-notifier-plugin", "options": {...} }]`.
 * `file`: default `render-events.jsonl`; a relative path is taken from the data directory (the
 * server's working directory is not something an operator controls well). `failuresOnly`: log only
 * `render.failed`.
 */
export const jsonLinesNotifier = definePlugin((options = {}) => {
  checkOptions(options);
  return {
    name: "example/notifier-jsonl",
    // The cores it works with (its peerDependencies range): another core refuses it at start.
    core: "^0.1.0",
    register({ provide, settings, logger }) {
      const file = resolve(settings.dataDir, options.file ?? "render-events.jsonl");
      // NOTIFIER is a list: this one joins the others (the server's webhooks) instead of replacing them.
      provide(NOTIFIER, new JsonLinesNotifier({ file, failuresOnly: options.failuresOnly, logger }));
    },
  };
});
export default jsonLinesNotifier;
