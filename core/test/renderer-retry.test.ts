import { RenderError } from "@renderkit/core";
import { expectRenderError } from "@renderkit/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { advanceUntil, expectOneEnd, type FakeRenderer, fakeRenderer, steps, useFakeClock } from "./fake-renderer.js";

// The Renderer's attempts and retries, on the fake engine: which failures are retried, the attempt
// limit, the stall guard and `global_timeout`, and one final event per render whatever happened.
// Time is a fake clock. test/e2e/retry.test.ts checks a real browser crash and a real stall.

const PAGE = { html: "<h1>retry</h1>", format: "html" };

describe("retries (fake engine)", () => {
  let rk: FakeRenderer | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await rk?.close();
    rk = undefined;
  });

  it("a retryable failure is retried: started, retrying, started, succeeded", async () => {
    rk = await fakeRenderer();
    const failed = rk.engine.inject({ kind: "error" });
    const result = await rk.renderer.render(PAGE);
    await failed;
    expect(steps(rk, result.renderId)).toEqual([
      ["render.created"],
      ["render.started", 1],
      ["render.retrying", 2],
      ["render.started", 2],
      ["render.succeeded"],
    ]);
    const retrying = rk.events.find((e) => e.type === "render.retrying");
    expect(retrying).toMatchObject({ reason: expect.stringMatching(/crashed/) });
    expect(expectOneEnd(rk, result.renderId)).toMatchObject({ type: "render.succeeded", result: { size: result.size } });
    expect(result.size).toBeGreaterThan(0);
  });

  it("a browser crash in the middle of an attempt: retried on a new browser, its page closed", async () => {
    rk = await fakeRenderer();
    rk.engine.inject({ kind: "crash" });
    const result = await rk.renderer.render(PAGE);
    expect(steps(rk, result.renderId).map(([type]) => type)).toEqual([
      "render.created",
      "render.started",
      "render.retrying",
      "render.started",
      "render.succeeded",
    ]);
    expect(rk.engine.stats()).toMatchObject({ launches: 2, pages: 0 });
    expect(rk.engine.pages.every((page) => page.isClosed)).toBe(true);
    expectOneEnd(rk, result.renderId);
  });

  it("a failure that is not retryable ends the render at once, with its own code", async () => {
    rk = await fakeRenderer();
    rk.engine.inject({ kind: "error", error: new RenderError("InvalidURLError", "refused by the test") });
    rk.engine.inject({ kind: "error" });
    const error = await expectRenderError(rk.renderer.render(PAGE), "InvalidURLError");
    expect(error.message).toBe("refused by the test");
    const [created] = rk.events;
    const renderId = created?.renderId as string;
    expect(steps(rk, renderId)).toEqual([["render.created"], ["render.started", 1], ["render.failed"]]);
    expect(rk.engine.pendingFaults).toBe(1);
    expect(expectOneEnd(rk, renderId)).toMatchObject({ type: "render.failed", code: "InvalidURLError" });
  });

  it("retries stop at maxAttempts: the last attempt's error ends the render", async () => {
    rk = await fakeRenderer({ maxAttempts: 2 });
    for (let i = 0; i < 3; i++) rk.engine.inject({ kind: "error" });
    const error = await expectRenderError(rk.renderer.render(PAGE), "EngineResponseNotOkError");
    expect(error.message).toMatch(/crashed/);
    const renderId = rk.events[0]?.renderId as string;
    expect(steps(rk, renderId)).toEqual([
      ["render.created"],
      ["render.started", 1],
      ["render.retrying", 2],
      ["render.started", 2],
      ["render.failed"],
    ]);
    expect(rk.engine.pendingFaults).toBe(1);
    expectOneEnd(rk, renderId);
  });

  it("a stalled attempt is aborted when its budget runs out, its page closed, and retried", async () => {
    rk = await fakeRenderer({ maxAttempts: 2 });
    const stalled = rk.engine.inject({ kind: "stall" });
    useFakeClock();
    const rendering = rk.renderer.render(PAGE);
    await stalled;
    const retried = () => rk?.events.some((e) => e.type === "render.retrying") ?? false;
    await advanceUntil(retried);
    const result = await rendering;
    const retrying = rk.events.find((e) => e.type === "render.retrying");
    expect(retrying).toMatchObject({ attempt: 2, reason: expect.stringMatching(/stalled for \d+ ms/) });
    expect(rk.engine.pages[0]?.isClosed).toBe(true);
    expect(rk.engine.stats().pages).toBe(0);
    expectOneEnd(rk, result.renderId);
  });

  it("a stalled last attempt fails with RenderTimeoutError saying it stalled", async () => {
    rk = await fakeRenderer({ maxAttempts: 1 });
    const stalled = rk.engine.inject({ kind: "stall", at: "open" });
    useFakeClock();
    const rendering = expectRenderError(rk.renderer.render(PAGE), "RenderTimeoutError");
    await stalled;
    await advanceUntil(() => rk?.events.some((e) => e.type === "render.failed") ?? false);
    expect((await rendering).message).toMatch(/stalled/);
    expectOneEnd(rk, rk.events[0]?.renderId as string);
  });

  it("global_timeout: an attempt cut by it is not retried", async () => {
    // The stall guard: max(attemptTimeoutMs, timeout + delay + 2 × wait_timeout + 15 s) = 22 s here,
    // within the 30 s global_timeout: the first attempt stalls out and is retried; the second has
    // 8 s left, less than its budget, so global_timeout ends it.
    rk = await fakeRenderer({ maxAttempts: 5, attemptTimeoutMs: 1_000 });
    for (let i = 0; i < 5; i++) rk.engine.inject({ kind: "stall" });
    useFakeClock();
    const request = { ...PAGE, timeout: 5_000, wait_timeout: 1_000, global_timeout: 30_000 };
    const rendering = expectRenderError(rk.renderer.render(request), "RenderTimeoutError");
    await advanceUntil(() => rk?.events.some((e) => e.type === "render.failed") ?? false);
    const error = await rendering;
    expect(error.message).toContain("global_timeout");
    const renderId = rk.events[0]?.renderId as string;
    expect(steps(rk, renderId)).toEqual([
      ["render.created"],
      ["render.started", 1],
      ["render.retrying", 2],
      ["render.started", 2],
      ["render.failed"],
    ]);
    expect(rk.engine.pendingFaults).toBe(3);
    expect(rk.engine.stats().pages).toBe(0);
    expect(expectOneEnd(rk, renderId)).toMatchObject({ code: "RenderTimeoutError" });
  });

  it("global_timeout: no attempt starts once it is spent, even after a retryable failure", async () => {
    // The page's script fails retryably once the render's time is spent (the clock jumps past it).
    const late = (): never => {
      vi.setSystemTime(Date.now() + 31_000);
      throw new RenderError("EngineResponseNotOkError", "the page went away", { retryable: true });
    };
    rk = await fakeRenderer({ maxAttempts: 5 }, { engine: { evaluate: late } });
    useFakeClock();
    const error = await expectRenderError(rk.renderer.render({ ...PAGE, global_timeout: 30_000 }), "RenderTimeoutError");
    expect(error.message).toContain("global_timeout");
    const renderId = rk.events[0]?.renderId as string;
    // The retry is announced when the attempt fails; the next one finds the time spent and never starts.
    expect(steps(rk, renderId)).toEqual([["render.created"], ["render.started", 1], ["render.retrying", 2], ["render.failed"]]);
    expect(rk.engine.pages).toHaveLength(1);
    expectOneEnd(rk, renderId);
  });
});
