import {
  definePlugin,
  type FinalRenderEvent,
  type JobHandler,
  QUEUE,
  type Queue,
  type QueueJob,
  type RenderEvent,
  type RenderResult,
} from "@renderkit/core";
import { expectRenderError } from "@renderkit/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectOneEnd, type FakeRenderer, fakeRenderer, steps, until, useFakeClock } from "./fake-renderer.js";

// What the Renderer does with a job a durable queue hands out again, on the fake engine: a job
// whose end is on record is not run twice, a job redelivered after its process died mid-attempt
// says so (`render.retrying`), and an end that could not be recorded is not lost. One final event
// is recorded and notified whatever happened. test/e2e/redelivery.test.ts checks the same with a
// real browser and the file queue.

const PAGE = { html: "<h1>again</h1>", format: "html" };

/** A durable queue whose every job comes out as a redelivery, as attempt `attempt`. */
class RedeliveringQueue implements Queue {
  readonly name = "redelivering";
  readonly durable = true;
  private handler: JobHandler | undefined;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly attempt: number) {}

  async start(handler: JobHandler): Promise<void> {
    this.handler = handler;
  }

  async add(job: QueueJob): Promise<void> {
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.handler?.({ ...job, attempt: this.attempt }, new AbortController().signal))
      .catch(() => undefined);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  async counts() {
    return { waiting: 0, active: this.running.size };
  }

  async close(): Promise<void> {
    await Promise.all(this.running);
  }
}

const redelivering = (attempt: number) =>
  definePlugin(() => ({
    name: "test/redelivering-queue",
    register({ provide }) {
      provide(QUEUE, new RedeliveringQueue(attempt));
    },
  }))();

describe("redelivered renders (fake engine)", () => {
  let rk: FakeRenderer | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await rk?.close();
    rk = undefined;
  });

  it("a render whose end is on record is not run again; its notifiers are told that end once more", async () => {
    const recorded = (renderId: string): FinalRenderEvent => {
      const result: RenderResult = {
        renderId,
        renderUrl: "http://example.test/renders/x.png",
        size: 42,
        renderTime: 7,
        queueTime: 1,
        bandwidth: 3,
        format: "png",
        contentType: "image/png",
        key: "x.png",
      };
      return { type: "render.succeeded", renderId, result, startTime: 1_000, endTime: 2_000 };
    };
    rk = await fakeRenderer({ finalEvent: async (renderId) => recorded(renderId) });
    const result = await rk.renderer.render(PAGE, { job: { webhookUrl: "https://hook.test/" } });
    expect(result).toMatchObject({ size: 42, renderUrl: "http://example.test/renders/x.png" });
    expect(rk.engine.pages).toHaveLength(0);
    expect(rk.engine.stats().launches).toBe(0);
    expect(steps(rk, result.renderId)).toEqual([["render.created"], ["render.succeeded"]]);
    expect(expectOneEnd(rk, result.renderId)).toMatchObject({ endTime: 2_000, job: { webhookUrl: "https://hook.test/" } });
  });

  it("a job redelivered as attempt 2 says the process stopped (render.retrying), then runs as attempt 2", async () => {
    rk = await fakeRenderer({ maxAttempts: 3 }, { plugins: [redelivering(2)] });
    const result = await rk.renderer.render(PAGE);
    expect(steps(rk, result.renderId)).toEqual([
      ["render.created"],
      ["render.retrying", 2],
      ["render.started", 2],
      ["render.succeeded"],
    ]);
    const retrying = rk.events.find((e) => e.type === "render.retrying");
    expect(retrying).toMatchObject({ reason: "The process stopped during the previous attempt" });
    expect(rk.engine.pages).toHaveLength(1);
    expectOneEnd(rk, result.renderId);
  });

  it("a job redelivered as its last attempt is not retried after a retryable failure", async () => {
    rk = await fakeRenderer({ maxAttempts: 3 }, { plugins: [redelivering(3)] });
    rk.engine.inject({ kind: "error" });
    await expectRenderError(rk.renderer.render(PAGE), "EngineResponseNotOkError");
    const renderId = rk.events[0]?.renderId as string;
    expect(steps(rk, renderId)).toEqual([["render.created"], ["render.retrying", 3], ["render.started", 3], ["render.failed"]]);
    expectOneEnd(rk, renderId);
  });

  it("a job redelivered past its last attempt fails without opening a page", async () => {
    rk = await fakeRenderer({ maxAttempts: 3 }, { plugins: [redelivering(4)] });
    const error = await expectRenderError(rk.renderer.render(PAGE), "EngineResponseNotOkError");
    expect(error.message).toBe("The render was interrupted by a restart on every attempt");
    const renderId = rk.events[0]?.renderId as string;
    expect(steps(rk, renderId)).toEqual([["render.created"], ["render.failed"]]);
    expect(rk.engine.pages).toHaveLength(0);
    expectOneEnd(rk, renderId);
  });

  it("an end that cannot be recorded is not lost: the render runs again, its end recorded and notified once", async () => {
    const ends = new Map<string, FinalRenderEvent>();
    let refusals = 0;
    // A record store that is unreachable the first time a render ends (Redis restarting).
    const record = async (event: RenderEvent) => {
      if (event.type !== "render.succeeded" && event.type !== "render.failed") return;
      if (refusals++ === 0) throw new Error("the shared state is unreachable");
      if (!ends.has(event.renderId)) ends.set(event.renderId, event);
    };
    rk = await fakeRenderer({ record, finalEvent: async (id) => ends.get(id) });
    useFakeClock();
    const rendering = rk.renderer.render(PAGE);
    // The memory queue hands the job out again 5 s after `JobNotDone`: once the first end was refused.
    await until(() => refusals === 1);
    await vi.advanceTimersByTimeAsync(5_000);
    const result = await rendering;
    expect(refusals).toBe(2);
    expect(ends.get(result.renderId)).toMatchObject({ type: "render.succeeded", renderId: result.renderId });
    // Rendered twice (listeners heard the first end, which was not recorded; the queue handed the
    // job out again as attempt 2), recorded and notified once.
    expect(steps(rk, result.renderId)).toEqual([
      ["render.created"],
      ["render.started", 1],
      ["render.succeeded"],
      ["render.retrying", 2],
      ["render.started", 2],
      ["render.succeeded"],
    ]);
    expect(rk.notified.map((e) => [e.type, e.renderId])).toEqual([["render.succeeded", result.renderId]]);
    expect(rk.engine.pages).toHaveLength(2);
  });
});
