import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { type JobHandler, JobNotDone, type Queue, type QueueJob } from "../contracts/queue.js";
import { delay, expectRenderError } from "./assertions.js";

/** A job with a fresh id. */
export function queueJob<T>(data: T, id: string = randomUUID()): QueueJob<T> {
  return { id, data, attempt: 1, enqueuedAt: Date.now() };
}

/** A promise plus its resolver, for handlers that wait for the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const until = (check: () => void | Promise<void>, timeout = 10_000) => vi.waitFor(check, { timeout, interval: 20 });

export interface QueueContractOptions {
  /** Title of the `describe` block. */
  name: string;
  /** A fresh queue, called once per test (a durable queue should use a fresh namespace each time); the suite closes it. */
  make: () => Promise<Queue> | Queue;
}

/** The behaviour every `Queue` must show. */
export function queueContract(options: QueueContractOptions): void {
  const { name, make } = options;
  describe(`queue contract: ${name}`, () => {
    async function withQueue(
      handler: JobHandler,
      concurrency: number,
      body: (queue: Queue) => Promise<void>,
      { close = true } = {},
    ): Promise<void> {
      const queue = await make();
      try {
        await queue.start(handler, { concurrency });
        await body(queue);
      } finally {
        if (close) await queue.close(1_000).catch(() => undefined);
      }
    }

    it("delivers every job exactly once with its data intact", async () => {
      const seen: QueueJob[] = [];
      const handler: JobHandler = async (job) => {
        seen.push(job);
      };
      await withQueue(handler, 2, async (queue) => {
        const jobs = Array.from({ length: 20 }, (_, i) => queueJob({ n: i, nested: { text: "é ✓", list: [1, null, true] } }));
        for (const job of jobs) await queue.add(job);
        await until(() => expect(seen.length).toBe(20));
        await delay(200);
        expect(seen.length).toBe(20);
        for (const job of jobs) {
          const delivered = seen.filter((s) => s.id === job.id);
          expect(delivered).toHaveLength(1);
          expect(delivered[0]?.data).toEqual(job.data);
          expect(delivered[0]?.attempt).toBe(1);
          expect(Math.abs((delivered[0]?.enqueuedAt ?? 0) - job.enqueuedAt)).toBeLessThan(1_000);
        }
      });
    });

    it("runs at most `concurrency` handlers at once", async () => {
      let running = 0;
      let most = 0;
      let done = 0;
      const handler: JobHandler = async () => {
        running++;
        most = Math.max(most, running);
        await delay(60);
        running--;
        done++;
      };
      await withQueue(handler, 3, async (queue) => {
        for (let i = 0; i < 12; i++) await queue.add(queueJob({ i }));
        await until(() => expect(done).toBe(12));
      });
      expect(most).toBeLessThanOrEqual(3);
      expect(most).toBeGreaterThanOrEqual(2);
    });

    it("delivers in FIFO order at concurrency 1", async () => {
      const order: number[] = [];
      const handler: JobHandler = async (job) => {
        order.push((job.data as { i: number }).i);
        await delay(5);
      };
      await withQueue(handler, 1, async (queue) => {
        for (let i = 0; i < 10; i++) await queue.add(queueJob({ i }));
        await until(() => expect(order).toHaveLength(10));
      });
      expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it("keeps going after a handler throws", async () => {
      const done: string[] = [];
      const handler: JobHandler = async (job) => {
        if ((job.data as { fail: boolean }).fail) throw new Error("handler failed on purpose");
        done.push(job.id);
      };
      await withQueue(handler, 1, async (queue) => {
        await queue.add(queueJob({ fail: true }));
        const ok = queueJob({ fail: false });
        await queue.add(ok);
        await until(() => expect(done).toEqual([ok.id]));
      });
    });

    it("hands a job whose handler threw JobNotDone out again, one attempt further, data intact", async () => {
      const seen: QueueJob[] = [];
      const handler: JobHandler = async (job) => {
        seen.push(job);
        if (seen.length === 1) throw new JobNotDone("its end could not be recorded", 50);
      };
      await withQueue(handler, 1, async (queue) => {
        const job = queueJob({ keep: "me" });
        await queue.add(job);
        await until(() => expect(seen).toHaveLength(2));
        await delay(200);
        expect(seen).toHaveLength(2);
        expect(seen.map((s) => [s.id, s.attempt])).toEqual([
          [job.id, 1],
          [job.id, 2],
        ]);
        expect(seen[1]?.data).toEqual({ keep: "me" });
        // And then it is done: nothing left waiting or running.
        await until(async () => expect(await queue.counts()).toEqual({ waiting: 0, active: 0 }));
      });
    });

    it("counts waiting and active jobs", async () => {
      const release = gate();
      const handler: JobHandler = () => release.promise;
      await withQueue(handler, 1, async (queue) => {
        expect(await queue.counts()).toEqual({ waiting: 0, active: 0 });
        for (let i = 0; i < 3; i++) await queue.add(queueJob({ i }));
        await until(async () => expect(await queue.counts()).toEqual({ waiting: 2, active: 1 }));
        release.open();
        await until(async () => expect(await queue.counts()).toEqual({ waiting: 0, active: 0 }));
      });
    });

    it("refuses an id it already holds", async () => {
      const release = gate();
      const calls: string[] = [];
      const handler: JobHandler = async (job) => {
        calls.push(job.id);
        await release.promise;
      };
      await withQueue(handler, 1, async (queue) => {
        const active = queueJob({ which: "active" });
        const waiting = queueJob({ which: "waiting" });
        await queue.add(active);
        await until(() => expect(calls).toEqual([active.id]));
        await queue.add(waiting);
        await expect(queue.add(queueJob({ which: "again" }, active.id))).rejects.toThrow();
        await expect(queue.add(queueJob({ which: "again" }, waiting.id))).rejects.toThrow();
        release.open();
        await until(() => expect(calls).toEqual([active.id, waiting.id]));
        await delay(100);
        expect(calls).toEqual([active.id, waiting.id]);
      });
    });

    it("rejects add after close with ServiceUnavailable", async () => {
      const queue = await make();
      await queue.start(async () => {}, { concurrency: 1 });
      await queue.close(1_000);
      await expectRenderError(queue.add(queueJob({})), "ServiceUnavailable");
    });

    it("close(timeout) waits for running jobs to finish", async () => {
      let finished = false;
      const handler: JobHandler = async () => {
        await delay(300);
        finished = true;
      };
      await withQueue(
        handler,
        1,
        async (queue) => {
          await queue.add(queueJob({}));
          await until(async () => expect((await queue.counts()).active).toBe(1));
          await queue.close(10_000);
          expect(finished).toBe(true);
        },
        { close: false },
      );
    });

    it("close(timeout) aborts the signal of jobs still running after the timeout", async () => {
      let aborted = false;
      let started = false;
      const handler: JobHandler = async (_job, signal) => {
        started = true;
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted = signal.aborted;
      };
      await withQueue(
        handler,
        1,
        async (queue) => {
          await queue.add(queueJob({}));
          await until(() => expect(started).toBe(true));
          const begin = Date.now();
          await queue.close(300);
          expect(aborted).toBe(true);
          expect(Date.now() - begin).toBeGreaterThanOrEqual(250);
          expect(Date.now() - begin).toBeLessThan(10_000);
        },
        { close: false },
      );
    });
  });
}
