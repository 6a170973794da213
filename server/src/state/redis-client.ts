import { RenderError } from "@renderkit/core";
import type { Redis } from "ioredis";

/** The address without its password, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    // ioredis also takes credentials as query parameters.
    for (const name of ["password", "username", "user"]) {
      if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***");
    }
    return parsed.href;
  } catch {
    return "(invalid address)";
  }
}

/**
 * A command connection for the server's shared state (records, limits, per-project load).
 * Commands fail fast while Redis is unreachable instead of queueing: a request then gets a 503
 * at once, and the client reconnects in the background. Resolves once connected; rejects with
 * a message naming the (redacted) address when Redis cannot be reached at start.
 */
export async function connectRedis(url: string, name: string): Promise<Redis> {
  // Loaded on demand: a server on files never needs the client.
  const { Redis } = await import("ioredis");
  const client = new Redis(url, {
    lazyConnect: true,
    connectionName: `renderkit-${name}`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    commandTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Errors surface on the commands that fail; the event would otherwise crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Redis at ${redactRedisUrl(url)} is unreachable: ${(error as Error).message}`);
  }
  return client;
}

/** A Redis failure as the API's 503 (the request can be retried once Redis is back). */
export function redisUnavailable(cause: unknown): RenderError {
  if (cause instanceof RenderError) return cause;
  return new RenderError("ServiceUnavailable", "The shared state (Redis) is unreachable; retry shortly", {
    cause,
    retryable: true,
  });
}

/** Awaits a Redis command; its failure becomes the API's 503 (`redisUnavailable`). */
export async function shared<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw redisUnavailable(error);
  }
}

/** Closes a connection, bounded: `quit` when it answers, else a hard disconnect. */
export async function closeRedis(client: Redis): Promise<void> {
  await Promise.race([client.quit().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  client.disconnect();
}
