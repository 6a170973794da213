import { withTimeout } from "@renderkit/core";
import { expectRenderError, queueJob } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { startRedis, useRedis } from "../../../test/helpers/redis.js";
import { deferred, freshQueueName, makeQueue, recorder, until } from "./helpers.js";

const redis = useRedis();
const cleanup = useCleanup();

/** Fails the test with a clear message instead of letting a hanging call run into the test timeout. */
const bounded = <T>(promise: Promise<T>, what: string) => withTimeout(promise, 10_000, () => new Error(`${what} hung`));

describe("BullMqQueue: adding", () => {
  it("adds, counts and closes without ever starting a worker (API nodes)", async () => {
    const queueName = freshQueueName();
    const producer = makeQueue(cleanup, redis, { queueName });
    expect(await producer.counts()).toEqual({ waiting: 0, active: 0 });
    await producer.add(queueJob({ n: 1 }));
    expect(await producer.counts()).toEqual({ waiting: 1, active: 0 });
    await producer.close();
    await expectRenderError(producer.add(queueJob({ n: 2 })), "ServiceUnavailable");
    await expectRenderError(producer.counts(), "ServiceUnavailable");
    // A queue that never connected closes at once, and opens nothing afterwards.
    const unused = makeQueue(cleanup, redis, { queueName });
    await unused.close();
    await expectRenderError(unused.counts(), "ServiceUnavailable");
  });

  it("refuses with a retryable ServiceUnavailable once maxWaiting jobs wait", async () => {
    const producer = makeQueue(cleanup, redis, { queueName: freshQueueName(), maxWaiting: 2 });
    await producer.add(queueJob({ n: 1 }));
    await producer.add(queueJob({ n: 2 }));
    const error = await expectRenderError(producer.add(queueJob({ n: 3 })), "ServiceUnavailable");
    expect(error).toMatchObject({ retryable: true, message: "The render queue is full; try again later" });
  });

  it("refuses an id it holds, ids BullMQ cannot store and data that is not JSON, with InvalidOptions", async () => {
    const producer = makeQueue(cleanup, redis, { queueName: freshQueueName() });
    const job = queueJob({ n: 1 });
    await producer.add(job);
    await expectRenderError(producer.add(queueJob({ n: 2 }, job.id)), "InvalidOptions");
    for (const id of ["", "a:b", "12345", "x".repeat(129), "with space"]) {
      await expectRenderError(producer.add(queueJob({}, id)), "InvalidOptions");
    }
    await expectRenderError(producer.add(queueJob({ big: 1n })), "InvalidOptions");
    expect(await producer.counts()).toEqual({ waiting: 1, active: 0 });
  });

  it("takes an id again once its job finished (BullMQ still keeps the finished job)", async () => {
    const queueName = freshQueueName();
    const worker = makeQueue(cleanup, redis, { queueName });
    const { handler, seen } = recorder();
    await worker.start(handler, { concurrency: 1 });
    const job = queueJob({ round: 1 });
    await worker.add(job);
    await until(() => expect(seen).toHaveLength(1));
    await until(async () => expect(await worker.counts()).toEqual({ waiting: 0, active: 0 }));
    await worker.add(queueJob({ round: 2 }, job.id));
    await until(() => expect(seen.map((s) => s.data)).toEqual([{ round: 1 }, { round: 2 }]));
    expect(seen.map((s) => [s.id, s.attempt])).toEqual([
      [job.id, 1],
      [job.id, 1],
    ]);
  });
});

describe("BullMqQueue: Redis down", () => {
  it("rejects add and counts at once with a retryable ServiceUnavailable, and close still returns", async () => {
    const own = await startRedis();
    cleanup.push(() => own.stop());
    const queueName = freshQueueName();
    const worker = makeQueue(cleanup, own, { queueName });
    const started = deferred();
    await worker.start(
      async (_job, signal) => {
        started.resolve();
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      },
      { concurrency: 1 },
    );
    await worker.add(queueJob({ n: 1 }));
    await started.promise;
    const producer = makeQueue(cleanup, own, { queueName });
    await producer.add(queueJob({ n: 2 }));

    await own.stop();
    const refused = await expectRenderError(bounded(producer.add(queueJob({ n: 3 })), "add"), "ServiceUnavailable");
    expect(refused).toMatchObject({ retryable: true });
    await expectRenderError(bounded(producer.counts(), "counts"), "ServiceUnavailable");
    // A node that starts while Redis is down refuses as fast.
    const late = makeQueue(cleanup, own, { queueName });
    await expectRenderError(bounded(late.add(queueJob({ n: 4 })), "add"), "ServiceUnavailable");

    // The outage is logged once, not once per reconnect attempt.
    await until(() => expect(producer.logs.at("warn", "redis connection failed; retrying in the background")).toHaveLength(1));
    await bounded(worker.close(200), "worker close");
    await bounded(producer.close(200), "producer close");
    await bounded(late.close(200), "late close");
  });
});
