import { expectRenderError, queueContract, queueJob } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { MemoryQueue } from "../dist/defaults/memory-queue.js";

queueContract({ name: "MemoryQueue", make: () => new MemoryQueue() });

describe("MemoryQueue specifics", () => {
  it("refuses jobs beyond maxWaiting with a retryable ServiceUnavailable", async () => {
    const queue = new MemoryQueue(2);
    await queue.start((_job, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve())), {
      concurrency: 1,
    });
    try {
      for (let i = 0; i < 3; i++) await queue.add(queueJob({ i }));
      expect(await queue.counts()).toEqual({ waiting: 2, active: 1 });
      const error = await expectRenderError(queue.add(queueJob({ i: 4 })), "ServiceUnavailable");
      expect(error).toMatchObject({ retryable: true });
    } finally {
      await queue.close(50);
    }
  });

  it("drops waiting jobs at close", async () => {
    const ran: number[] = [];
    const queue = new MemoryQueue();
    await queue.start(
      async (job) => {
        ran.push((job.data as { i: number }).i);
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      { concurrency: 1 },
    );
    for (let i = 0; i < 3; i++) await queue.add(queueJob({ i }));
    await queue.close(5_000);
    expect(ran).toEqual([0]);
    expect(await queue.counts()).toEqual({ waiting: 0, active: 0 });
  });

  it("refuses a second start", async () => {
    const queue = new MemoryQueue();
    await queue.start(async () => {}, { concurrency: 1 });
    await expect(queue.start(async () => {}, { concurrency: 1 })).rejects.toThrow();
    await queue.close();
  });
});
