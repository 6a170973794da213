import { type BackendFactory, QueueKeys, RedisConnection, RedisQueueBackend } from "bullmq";
import type { Redis } from "ioredis";

/**
 * A BullMQ backend on two connections this package opened (a main one and the dedicated one for
 * the worker's blocking fetch), built as BullMQ's default `createRedisBackend` does but with
 * both marked `shared`. BullMQ would otherwise duplicate the blocking connection itself, out of
 * our reach: when Redis is gone, its close waits forever for an `end` event that never comes
 * (`RedisConnection.disconnect`), and the duplicate keeps a reconnect timer alive. Owning both
 * lets `close()` always tear them down.
 */
export function sharedBackend(prefix: string, main: Redis, blocking: Redis): BackendFactory<RedisQueueBackend> {
  return (name, opts) => {
    const keys = new QueueKeys(prefix);
    return new RedisQueueBackend(
      new RedisConnection(main, { shared: true, blocking: false }),
      name,
      keys.getKeys(name),
      (type: string) => keys.toKey(name, type),
      opts,
      new RedisConnection(blocking, { shared: true, blocking: true }),
    );
  };
}
