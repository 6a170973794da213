import { withTimeout } from "@renderkit/core";
import type { Redis, RedisOptions } from "ioredis";

type RedisConstructor = typeof Redis;
type Duplicate = (override?: Partial<RedisOptions>) => Redis;

/** Longest pause between reconnection attempts: also how long a closing client may take to notice. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * Every Redis connection the BullMQ notifier opens, including the copies BullMQ makes itself (a
 * worker's blocking connection), so that `close()` ends them all even when Redis is gone.
 * `ioredis` is loaded here, on demand, so the file notifier never loads it.
 */
export class RedisClients {
  private readonly clients = new Set<Redis>();
  private closing = false;

  private constructor(
    private readonly RedisClient: RedisConstructor,
    private readonly url: string,
  ) {}

  /** Loads `ioredis` (an optional peer dependency). */
  static async load(url: string): Promise<RedisClients> {
    const { Redis } = await import("ioredis");
    return new RedisClients(Redis, url);
  }

  /**
   * For adding jobs and reading states. Commands fail at once while Redis is unreachable instead
   * of waiting in ioredis's offline queue, so `notify()` rejects quickly rather than hanging.
   */
  producer(): Redis {
    return this.open({ enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: "renderkit-webhooks-producer" });
  }

  /**
   * For a worker. BullMQ requires `maxRetriesPerRequest: null` on the blocking copy it makes of
   * this connection; a worker waits for Redis to come back rather than failing its jobs.
   */
  worker(): Redis {
    return this.open({ maxRetriesPerRequest: null, connectionName: "renderkit-webhooks-worker" });
  }

  /** True when every connection is up (BullMQ's graceful close needs Redis to answer). */
  ready(): boolean {
    return [...this.clients].every((client) => client.status === "ready");
  }

  private open(options: RedisOptions): Redis {
    // Reconnects until `close()`; then the next attempt ends the client instead (see close()).
    const retryStrategy = (times: number) => (this.closing ? null : Math.min(times * 100, MAX_RECONNECT_DELAY_MS));
    return this.track(new this.RedisClient(this.url, { ...options, retryStrategy }));
  }

  private track(client: Redis): Redis {
    this.clients.add(client);
    // BullMQ listens while it uses the client and reports through the queue's and worker's
    // `error` events; this listener only keeps a closed client's late errors off stderr.
    client.on("error", () => undefined);
    // ioredis copies options (and so the retry strategy) into duplicates; they are tracked too.
    const duplicate: Duplicate = client.duplicate.bind(client);
    (client as unknown as { duplicate: Duplicate }).duplicate = (override) => this.track(duplicate(override));
    return client;
  }

  /**
   * Ends every connection, waiting at most `ms`: connected ones quit (pending replies first), a
   * client waiting to reconnect is left to its next attempt, which the retry strategy now ends.
   * Calling `disconnect()` on such a client would park it forever without an `end` event and
   * without failing its queued commands (ioredis #4585, which BullMQ's own code works around).
   */
  async close(ms: number): Promise<void> {
    this.closing = true;
    const ended = [...this.clients].map((client) =>
      client.status === "end" ? undefined : new Promise<void>((resolve) => client.once("end", () => resolve())),
    );
    for (const client of this.clients) {
      if (client.status === "ready") client.quit().catch(() => client.disconnect());
      else if (client.status === "reconnecting") client.once("connect", () => client.disconnect());
      else if (client.status !== "end") client.disconnect();
    }
    await withTimeout(Promise.all(ended), ms).catch(() => undefined);
    // A server that accepted the connection but does not answer QUIT: drop the socket.
    for (const client of this.clients) if (client.status === "ready" || client.status === "connect") client.disconnect();
  }
}
