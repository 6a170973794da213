import type { PageSession, ScreencastFrame, ScreencastSettings } from "@renderkit/core";
import { RenderError } from "@renderkit/core";
import { captureFrames, PAINTED_SCRIPT, TOUR_SCRIPT, type TourPlan, type VideoPlan } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

const plan: VideoPlan = {
  format: "mp4",
  codec: "h264",
  fps: 10,
  frames: 10,
  duration: 1,
  scroll: false,
  scrollLimit: 20_000,
  pageScripts: true,
  quality: 30,
  preset: "veryfast",
  width: 640,
  height: 360,
  captureWidth: 640,
  captureHeight: 360,
};

/** A page whose screencast paints every `everyMs` (never when undefined), with timestamps from `clock`. */
function fakeSession(everyMs?: number, clock = () => Date.now() / 1000) {
  const calls = {
    screenshots: 0,
    evaluated: [] as unknown[],
    stopped: false,
    settings: undefined as ScreencastSettings | undefined,
  };
  const session = {
    async screencast(settings: ScreencastSettings, onFrame: (frame: ScreencastFrame) => void) {
      calls.settings = settings;
      let n = 0;
      const timer =
        everyMs === undefined
          ? undefined
          : setInterval(() => onFrame({ data: Buffer.from(`f${n++}`), timestamp: clock() }), everyMs);
      return {
        async stop() {
          clearInterval(timer);
          calls.stopped = true;
        },
      };
    },
    async screenshot() {
      calls.screenshots++;
      return new Uint8Array(Buffer.from("shot"));
    },
    async evaluate(source: string, arg?: unknown) {
      calls.evaluated.push([source, arg]);
      return undefined;
    },
  } as unknown as PageSession;
  return { session, calls };
}

function recorder() {
  const out: string[] = [];
  const emit = (data: Buffer, count: number) => {
    for (let i = 0; i < count; i++) out.push(data.toString());
    return true;
  };
  return { out, emit };
}

const never = new AbortController().signal;

describe("captureFrames", () => {
  it("starts with a screenshot when the page paints nothing within 200 ms, and holds it", async () => {
    const { session, calls } = fakeSession();
    const { out, emit } = recorder();
    const started = Date.now();
    const stats = await captureFrames(session, plan, emit, never);
    // It waited for the first frame (200 ms) and the whole video (1 s): a minimum, whatever the load.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    expect(out).toEqual(Array(10).fill("shot"));
    expect(stats).toMatchObject({ frames: 10, distinct: 1, screenshotStart: true });
    expect(calls.screenshots).toBe(1);
    expect(calls.stopped).toBe(true);
    expect(calls.settings).toEqual({ format: "jpeg", quality: 85, maxWidth: 640, maxHeight: 360 });
  });

  it("resamples a steady paint rate to the output rate, emitting while it captures", async () => {
    const { session, calls } = fakeSession(20);
    const { out, emit } = recorder();
    // Frames emitted before the screencast stopped: encoding ran during the capture.
    let duringCapture = 0;
    const stats = await captureFrames(
      session,
      plan,
      (data, count) => {
        if (!calls.stopped) duringCapture += count;
        return emit(data, count);
      },
      never,
    );
    expect(out).toHaveLength(10);
    expect(duringCapture).toBeGreaterThan(0);
    // How many paints a busy machine's timers deliver varies; their order does not.
    expect(stats.distinct).toBeGreaterThanOrEqual(2);
    // A timer late by 200 ms (a loaded machine) starts the video with a screenshot instead: still in order.
    const painted = out.map((label) => (label === "shot" ? -1 : Number(label.slice(1))));
    expect(painted).toEqual([...painted].sort((a, b) => a - b));
    expect(stats.received).toBeGreaterThanOrEqual(stats.distinct);
    expect(calls.screenshots).toBe(stats.screenshotStart ? 1 : 0);
  });

  it("realigns frames stamped on another clock", async () => {
    const { session } = fakeSession(25, () => performance.now() / 1000);
    const { out, emit } = recorder();
    const stats = await captureFrames(session, plan, emit, never);
    expect(out).toHaveLength(10);
    expect(stats.distinct).toBeGreaterThanOrEqual(6);
  });

  it("starts the scroll script when the video starts", async () => {
    const { session, calls } = fakeSession(50);
    const tour: TourPlan = {
      prescrollMs: 100,
      scrollMs: 800,
      restMs: 100,
      backMs: 0,
      postscrollMs: 0,
      scrollBack: false,
      ease: "sinusoidal.inout",
      easeEnd: "sinusoidal.inout",
      limit: 20_000,
    };
    await captureFrames(session, { ...plan, scroll: true, tour }, recorder().emit, never);
    expect(calls.evaluated).toEqual([
      [PAINTED_SCRIPT, undefined],
      [TOUR_SCRIPT, { tour, elapsedMs: expect.any(Number) }],
    ]);
  });

  it("stops at once when cancelled, with the cancel reason, and stops the screencast", async () => {
    const { session, calls } = fakeSession(20);
    const controller = new AbortController();
    const { out, emit } = recorder();
    // A 10-minute video cancelled once its first frame is out: only stopping at once ends it within the test.
    const long: VideoPlan = { ...plan, frames: 6_000, duration: 600 };
    const cancelOnFirst = (data: Buffer, count: number) => {
      if (out.length === 0) setImmediate(() => controller.abort(new RenderError("TimedOutError", "stopped by shutdown")));
      return emit(data, count);
    };
    await expect(captureFrames(session, long, cancelOnFirst, controller.signal)).rejects.toMatchObject({
      code: "TimedOutError",
    });
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThan(6_000);
    expect(calls.stopped).toBe(true);
  });

  it("ends early when the encoder failed", async () => {
    const { session, calls } = fakeSession(20);
    const boom = new Error("ffmpeg died");
    let failed: unknown;
    setTimeout(() => {
      failed = boom;
    }, 200);
    await expect(captureFrames(session, plan, recorder().emit, never, () => failed)).rejects.toBe(boom);
    expect(calls.stopped).toBe(true);
  });
});
