import type { Logger } from "@renderkit/core";
import type { RedisOptions } from "ioredis";

/** Options of `new BullMqQueue()` and `bullmqQueue()`. */
export interface BullMqQueueOptions {
  /**
   * The Redis server: a `redis://` / `rediss://` URL, or ioredis options (host, port, password,
   * tls, db...). The queue opens its own connections from it and tunes each one for its role.
   */
  connection: string | RedisOptions;
  /** BullMQ queue name; every API and worker node of one deployment uses the same. Default `renders`. */
  queueName?: string;
  /** Prefix of every Redis key. Default `renderkit`. */
  prefix?: string;
  /**
   * Most jobs waiting (wait + delayed + prioritized), counted over the whole cluster;
   * `add` beyond it throws a retryable `ServiceUnavailable`. Default 100 (plugin: the
   * renderer's `maxQueued`).
   */
  maxWaiting?: number;
  /** How long a worker's lock on a running job lasts without renewal (renewed every half). Default 30 000. */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock expired (their worker died). Default 30 000. */
  stalledIntervalMs?: number;
  /**
   * Stalls BullMQ tolerates before it fails a job on its own. Default 1 000: the renderer, not
   * BullMQ, decides when a render has used up its attempts (`attempt` counts stalls).
   */
  maxStalledCount?: number;
  /** How long finished jobs stay in Redis (seconds; 0 removes them at once). Default 3 600. */
  keepCompletedSeconds?: number;
  /** How long jobs whose handler threw stay in Redis (seconds). Default 86 400. */
  keepFailedSeconds?: number;
  /** Where stalls, lost locks and Redis outages are reported. Default: JSON lines on stderr (plugin: the renderer's logger). */
  logger?: Logger;
}

/** The options with defaults filled in and checked (each field as documented in `BullMqQueueOptions`). */
export type ResolvedOptions = Required<Omit<BullMqQueueOptions, "logger">> & Pick<BullMqQueueOptions, "logger">;

const HOUR_MS = 3_600_000;
const YEAR_SECONDS = 365 * 24 * 3_600;

function integer(name: string, value: number, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`bullmqQueue: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** BullMQ refuses `:` in queue names; whitespace and other punctuation would only cause surprises in key names (braces stay, for hash tags). */
function name(option: string, value: unknown): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9_.{}-]{1,100}$/.test(value)) {
    throw new TypeError(`bullmqQueue: ${option} must be 1 to 100 of A-Z a-z 0-9 _ . - { }, got ${JSON.stringify(value)}`);
  }
  return value;
}

function connection(value: unknown): string | RedisOptions {
  if (typeof value === "string") {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new TypeError("bullmqQueue: connection must be a redis:// or rediss:// URL or ioredis options");
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
      throw new TypeError(`bullmqQueue: connection must use redis:// or rediss://, got ${url.protocol}//`);
    }
    return value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("bullmqQueue: connection must be a redis:// or rediss:// URL or ioredis options");
  }
  const options = value as RedisOptions;
  // BullMQ builds its own key names and refuses a client-side prefix; `prefix` is the option for that.
  if (options.keyPrefix) throw new TypeError("bullmqQueue: connection.keyPrefix is not supported; use the prefix option");
  return options;
}

/** Checks the options and fills defaults; throws `TypeError`/`RangeError` naming the bad option. */
export function resolveOptions(options: BullMqQueueOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("bullmqQueue: options are required");
  const logger = options.logger;
  const levels = ["debug", "info", "warn", "error"] as const;
  if (logger !== undefined && levels.some((level) => typeof logger?.[level] !== "function")) {
    throw new TypeError("bullmqQueue: logger must implement debug, info, warn and error");
  }
  return {
    connection: connection(options.connection),
    queueName: name("queueName", options.queueName ?? "renders"),
    prefix: name("prefix", options.prefix ?? "renderkit"),
    maxWaiting: integer("maxWaiting", options.maxWaiting ?? 100, 1, 10_000_000),
    lockDurationMs: integer("lockDurationMs", options.lockDurationMs ?? 30_000, 1_000, HOUR_MS),
    stalledIntervalMs: integer("stalledIntervalMs", options.stalledIntervalMs ?? 30_000, 100, HOUR_MS),
    maxStalledCount: integer("maxStalledCount", options.maxStalledCount ?? 1_000, 0, 1_000_000),
    keepCompletedSeconds: integer("keepCompletedSeconds", options.keepCompletedSeconds ?? 3_600, 0, YEAR_SECONDS),
    keepFailedSeconds: integer("keepFailedSeconds", options.keepFailedSeconds ?? 86_400, 0, YEAR_SECONDS),
    logger,
  };
}
