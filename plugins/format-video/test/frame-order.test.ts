import type { PageSession, ScreencastFrame } from "@renderkit/core";
import { captureFrames, FrameResampler, type VideoPlan } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

// Frames reach the encoder in capture order whatever the load (issue 14, finding 9): a frame that
// arrives after a later picture was already handed on is dropped, never shown after it.

const plan: VideoPlan = {
  format: "mp4",
  codec: "h264",
  fps: 10,
  frames: 10,
  duration: 1,
  scroll: false,
  scrollLimit: 20_000,
  pageScripts: false,
  quality: 30,
  preset: "veryfast",
  width: 640,
  height: 360,
  captureWidth: 640,
  captureHeight: 360,
};

function labels() {
  const out: string[] = [];
  const emit = (data: Buffer, count: number) => {
    for (let i = 0; i < count; i++) out.push(data.toString());
    return true;
  };
  return { out, emit };
}

describe("frame order", () => {
  it("FrameResampler drops a frame painted before the one it holds, and counts it", () => {
    const { out, emit } = labels();
    const resampler = new FrameResampler(10, 6, emit);
    resampler.push(Buffer.from("a"), 0);
    resampler.push(Buffer.from("c"), 0.25);
    resampler.push(Buffer.from("b"), 0.15); // painted before c, delivered after it
    resampler.push(Buffer.from("d"), 0.45);
    resampler.finish();
    expect(out).toEqual(["a", "a", "c", "c", "d", "d"]);
    expect(resampler.stats).toMatchObject({ frames: 6, received: 4, dropped: 1, distinct: 3 });
  });

  it("a screencast frame painted before the screenshot that started the video is dropped", async () => {
    const now = () => Date.now() / 1000;
    let emitFrame: (frame: ScreencastFrame) => void = () => undefined;
    let painter: NodeJS.Timeout | undefined;
    const session = {
      async screencast(_settings: unknown, onFrame: (frame: ScreencastFrame) => void) {
        emitFrame = onFrame;
        return {
          async stop() {
            clearInterval(painter);
          },
        };
      },
      async screenshot() {
        const takenAt = now();
        // Chromium delivers, late, a paint from before the screenshot; then the page paints on.
        setImmediate(() => {
          emitFrame({ data: Buffer.from("stale"), timestamp: takenAt - 0.05 });
          painter = setInterval(() => emitFrame({ data: Buffer.from("fresh"), timestamp: now() }), 20);
        });
        return new Uint8Array(Buffer.from("shot"));
      },
      async evaluate() {
        return undefined;
      },
    } as unknown as PageSession;
    const { out, emit } = labels();
    const stats = await captureFrames(session, plan, emit, new AbortController().signal);
    expect(stats.screenshotStart).toBe(true);
    expect(out).toHaveLength(10);
    expect(out).not.toContain("stale");
    expect(out[0]).toBe("shot");
    expect(stats.dropped).toBeGreaterThanOrEqual(1);
    // Once the page paints again, the video never goes back to the screenshot.
    const firstFresh = out.indexOf("fresh");
    if (firstFresh >= 0) expect(out.slice(firstFresh).every((f) => f === "fresh")).toBe(true);
  });
});
