import { randomUUID } from "node:crypto";
import type { JobHandler, QueueJob } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";
import { vi } from "vitest";
import type { Cleanup } from "../../../test/helpers/cleanup.js";
import type { TestRedis } from "../../../test/helpers/redis.js";
import { BullMqQueue, type BullMqQueueOptions } from "../dist/index.js";

/** A queue name of its own for each queue set, so tests sharing one Redis never see each other's jobs. */
export function freshQueueName(): string {
  return `q-${randomUUID().slice(0, 8)}`;
}

/** A BullMqQueue on the test Redis with a recording logger, closed after the test. */
export function makeQueue(
  cleanup: Cleanup,
  redis: TestRedis,
  options: Partial<BullMqQueueOptions> & { queueName: string },
): BullMqQueue & { logs: RecordingLogger } {
  const logs = new RecordingLogger();
  const queue = new BullMqQueue({ connection: redis.url, logger: logs, ...options });
  cleanup.push(() => queue.close(1_000));
  return Object.assign(queue, { logs });
}

/** Polls `check` until it passes (events, not elapsed time, decide the tests). */
export const until = (check: () => void | Promise<void>, timeout = 20_000) => vi.waitFor(check, { timeout, interval: 25 });

/** A promise plus its resolver. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A handler that records every job and then waits for `gate` (if any). */
export function recorder(gate?: Promise<void>): { handler: JobHandler; seen: QueueJob[] } {
  const seen: QueueJob[] = [];
  const handler: JobHandler = async (job) => {
    seen.push(job);
    await gate;
  };
  return { handler, seen };
}
