import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { QueueJob } from "@renderkit/core";
import { queueJob } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { useRedis } from "../../../test/helpers/redis.js";
import { deferred, freshQueueName, makeQueue, until } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/stuck-worker.mjs", import.meta.url));
const STALLED = "a render job stalled: its worker stopped renewing the lock; it goes back to the queue";

const redis = useRedis();
const cleanup = useCleanup();

/** Starts the stuck worker fixture; resolves each job line it prints. Killed after the test. */
function stuckWorker(queueName: string): { child: ChildProcess; nextJob: () => Promise<{ id: string; attempt: number }> } {
  const child = spawn(process.execPath, [FIXTURE, redis.url, queueName], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2_000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const nextJob = async () => {
    const line = await lines.next();
    if (line.done) throw new Error(`the worker fixture exited: ${stderr}`);
    return JSON.parse(line.value) as { id: string; attempt: number };
  };
  return { child, nextJob };
}

describe("BullMqQueue: jobs outlive their worker", () => {
  it("a job whose worker was killed with SIGKILL comes back to another worker, one attempt further", async () => {
    const queueName = freshQueueName();
    const producer = makeQueue(cleanup, redis, { queueName });
    const { child, nextJob } = stuckWorker(queueName);
    const job = queueJob({ url: "https://example.com/", nested: { text: "é ✓", list: [1, null, true] } });
    await producer.add(job);
    expect(await nextJob()).toEqual({ id: job.id, attempt: 1 });

    const killed = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    child.kill("SIGKILL");
    expect(await killed).toBe("SIGKILL");

    const second = makeQueue(cleanup, redis, { queueName, lockDurationMs: 2_000, stalledIntervalMs: 1_000 });
    const delivered = deferred<QueueJob>();
    await second.start(async (received) => delivered.resolve(received), { concurrency: 1 });
    const again = await delivered.promise;
    expect(again).toEqual({ id: job.id, data: job.data, attempt: 2, enqueuedAt: job.enqueuedAt });
    // The live worker's stall check found the dead worker's job and said so.
    await until(() => expect(second.logs.at("warn", STALLED).map((e) => e.fields.jobId)).toEqual([job.id]));
    await until(async () => expect(await producer.counts()).toEqual({ waiting: 0, active: 0 }));
  });

  it("close(timeout) aborts a running job and puts it back: not completed, another worker runs it one attempt further", async () => {
    const queueName = freshQueueName();
    const first = makeQueue(cleanup, redis, { queueName });
    const started = deferred();
    let reason: unknown;
    await first.start(
      async (_job, signal) => {
        started.resolve();
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        reason = signal.reason;
      },
      { concurrency: 1 },
    );
    const job = queueJob({ n: 7 });
    await first.add(job);
    await started.promise;
    await first.close(200);
    expect(reason).toMatchObject({ code: "TimedOutError", message: "The render was stopped by shutdown" });

    // Back in the wait list as soon as close returned (not completed, not left to the stall check).
    const producer = makeQueue(cleanup, redis, { queueName });
    expect(await producer.counts()).toEqual({ waiting: 1, active: 0 });

    const second = makeQueue(cleanup, redis, { queueName });
    const delivered = deferred<QueueJob>();
    await second.start(async (received) => delivered.resolve(received), { concurrency: 1 });
    expect(await delivered.promise).toEqual({ id: job.id, data: job.data, attempt: 2, enqueuedAt: job.enqueuedAt });
    await until(async () => expect(await producer.counts()).toEqual({ waiting: 0, active: 0 }));
  });

  it("a job added with attempt 3 and put back by close comes back with attempt 4", async () => {
    const queueName = freshQueueName();
    const first = makeQueue(cleanup, redis, { queueName });
    const started = deferred<QueueJob>();
    await first.start(
      async (received, signal) => {
        started.resolve(received);
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      },
      { concurrency: 1 },
    );
    await first.add({ ...queueJob({ n: 1 }), attempt: 3 });
    expect((await started.promise).attempt).toBe(3);
    await first.close(0);

    const second = makeQueue(cleanup, redis, { queueName });
    const delivered = deferred<QueueJob>();
    await second.start(async (received) => delivered.resolve(received), { concurrency: 1 });
    expect((await delivered.promise).attempt).toBe(4);
  });
});
