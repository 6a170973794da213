import { queueJob } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { useRedis } from "../../../test/helpers/redis.js";
import { deferred, freshQueueName, makeQueue, recorder, until } from "./helpers.js";

const redis = useRedis();
const cleanup = useCleanup();

describe("BullMqQueue: several processes on one queue", () => {
  it("two workers share 30 jobs, each delivered exactly once; a producer-only instance sees cluster-wide counts", async () => {
    const queueName = freshQueueName();
    const gate = deferred();
    const a = recorder(gate.promise);
    const b = recorder(gate.promise);
    const workerA = makeQueue(cleanup, redis, { queueName });
    const workerB = makeQueue(cleanup, redis, { queueName });
    await workerA.start(a.handler, { concurrency: 2 });
    await workerB.start(b.handler, { concurrency: 2 });
    // An API node: it only adds and reads counts; it never starts.
    const producer = makeQueue(cleanup, redis, { queueName });

    const jobs = Array.from({ length: 30 }, (_, i) => queueJob({ i }));
    for (const job of jobs) await producer.add(job);
    // Both workers hold two jobs each until the gate opens: 4 running, 26 waiting, over the cluster.
    await until(async () => expect(await producer.counts()).toEqual({ waiting: 26, active: 4 }));
    expect(a.seen).toHaveLength(2);
    expect(b.seen).toHaveLength(2);

    gate.resolve();
    await until(() => expect(a.seen.length + b.seen.length).toBe(30));
    await until(async () => expect(await producer.counts()).toEqual({ waiting: 0, active: 0 }));
    const delivered = [...a.seen, ...b.seen].map((job) => job.id).sort();
    expect(delivered).toEqual(jobs.map((job) => job.id).sort());
    for (const job of [...a.seen, ...b.seen]) expect(job.attempt).toBe(1);
  });

  it("refuses a duplicate id added from another instance, and only one of many concurrent adds of one id wins", async () => {
    const queueName = freshQueueName();
    const one = makeQueue(cleanup, redis, { queueName });
    const two = makeQueue(cleanup, redis, { queueName });
    const job = queueJob({ which: "first" });
    await one.add(job);
    await expect(two.add(queueJob({ which: "again" }, job.id))).rejects.toMatchObject({ code: "InvalidOptions" });

    const racer = queueJob({ which: "race" });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).add(queueJob({ i }, racer.id))),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toMatchObject({ code: "InvalidOptions" });
    expect(await one.counts()).toEqual({ waiting: 2, active: 0 });
  });

  it("counts maxWaiting over the cluster: a second producer is refused once the first filled the queue", async () => {
    const queueName = freshQueueName();
    const one = makeQueue(cleanup, redis, { queueName, maxWaiting: 3 });
    const two = makeQueue(cleanup, redis, { queueName, maxWaiting: 3 });
    for (let i = 0; i < 3; i++) await one.add(queueJob({ i }));
    await expect(two.add(queueJob({ i: 3 }))).rejects.toMatchObject({ code: "ServiceUnavailable", retryable: true });
    // Concurrent adds cannot overshoot either: reservations in flight count as waiting.
    const other = freshQueueName();
    const three = makeQueue(cleanup, redis, { queueName: other, maxWaiting: 5 });
    const four = makeQueue(cleanup, redis, { queueName: other, maxWaiting: 5 });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? three : four).add(queueJob({ i }))));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(5);
    expect(await three.counts()).toEqual({ waiting: 5, active: 0 });
  });
});
