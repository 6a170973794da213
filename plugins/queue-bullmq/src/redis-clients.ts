import type { Logger } from "@renderkit/core";
import { withTimeout } from "@renderkit/core";
import { Redis, type RedisOptions } from "ioredis";

/**
 * The producer connection (`add`, `counts`) fails fast: no offline queue, so a command sent
 * while Redis is unreachable rejects at once, and a bounded command time for a server that
 * stopped answering. An HTTP request then gets a 503 instead of hanging. It keeps reconnecting
 * in the background, so the node recovers by itself when Redis is back.
 */
const PRODUCER_FORCED: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false };
const PRODUCER_DEFAULTS: RedisOptions = {
  connectTimeout: 2_000,
  commandTimeout: 5_000,
  retryStrategy: (times) => Math.min(times * 250, 2_000),
};

/**
 * Worker connections wait for Redis instead: BullMQ requires `maxRetriesPerRequest: null` on
 * them, and a job's completion must not be lost to a short outage. No command timeout, which
 * would cut BullMQ's blocking fetch.
 */
const WORKER_FORCED: RedisOptions = {
  enableOfflineQueue: true,
  maxRetriesPerRequest: null,
  lazyConnect: false,
  commandTimeout: undefined,
};
const WORKER_DEFAULTS: RedisOptions = {
  connectTimeout: 10_000,
  retryStrategy: (times) => Math.min(times * 500, 5_000),
};

/** Longest wait for the first connection of a fresh producer before `add` gives up. */
export const FIRST_CONNECT_MS = 3_000;

function open(connection: string | RedisOptions, defaults: RedisOptions, forced: RedisOptions, name: string): Redis {
  const base = { ...defaults, connectionName: name };
  // With a URL, ioredis lets the URL (and its query) win over these options; the address is all we expect there.
  if (typeof connection === "string") return new Redis(connection, { ...base, ...forced });
  return new Redis({ ...base, ...connection, ...forced });
}

/** A connection for adding jobs and reading counts (fails fast). */
export function producerClient(connection: string | RedisOptions, name: string): Redis {
  return open(connection, PRODUCER_DEFAULTS, PRODUCER_FORCED, name);
}

/** A connection for a BullMQ worker (waits out outages). */
export function workerClient(connection: string | RedisOptions, name: string): Redis {
  return open(connection, WORKER_DEFAULTS, WORKER_FORCED, name);
}

/**
 * Logs the first error of an outage and the recovery, not every reconnect attempt (ioredis
 * emits an error per attempt). The listener also keeps ioredis from printing unhandled errors.
 */
export function watchClient(client: Redis, role: string, logger: Logger): void {
  let down = false;
  client.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn("redis connection failed; retrying in the background", { role, error: error.message });
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info("redis connection restored", { role });
  });
}

/**
 * Resolves when `client` can take commands. Rejects at once while it is between reconnect
 * attempts (Redis is known to be down) and after `ms` during a first connection.
 */
export function untilReady(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  if (client.status !== "connecting" && client.status !== "connect" && client.status !== "wait") {
    return Promise.reject(new Error(`Redis is not connected (${client.status})`));
  }
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new Error("Redis closed the connection"));
    const timer = setTimeout(() => done(new Error(`Redis did not answer within ${ms} ms`)), ms);
    timer.unref();
    client.once("ready", onReady);
    client.once("close", onClose);
  });
}

/** Quits politely when Redis answers within `ms`, then disconnects whatever state the client is in (no timer survives). */
export async function closeClient(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") {
    await withTimeout(client.quit(), ms).catch(() => undefined);
  }
  // Also in `reconnecting`: only this clears the reconnect timer. After `end` there is nothing left to stop.
  if (client.status !== "end") client.disconnect();
}
