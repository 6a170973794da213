import { FrameResampler } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

const frame = (label: string) => Buffer.from(label);

/** A resampler at `fps` for `total` frames whose output is recorded as labels, one per frame. */
function recorder(fps: number, total: number, accept: (data: Buffer) => boolean = () => true) {
  const out: string[] = [];
  const resampler = new FrameResampler(fps, total, (data, count) => {
    const ok = accept(data);
    const shown = ok ? data.toString() : (out.at(-1) ?? "?");
    for (let i = 0; i < count; i++) out.push(shown);
    return ok;
  });
  return { out, resampler };
}

describe("FrameResampler", () => {
  it("maps irregular paints to exactly fps × duration frames, each showing the paint nearest its time", () => {
    const { out, resampler } = recorder(10, 10);
    resampler.push(frame("a"), 100.0);
    resampler.push(frame("b"), 100.24); // slot 0.2: b, 0.04 after it, is nearer than a, 0.2 before
    resampler.push(frame("c"), 100.3); // exactly on slot 0.3: c shows there
    resampler.push(frame("d"), 100.71); // slot 0.7: d, 0.01 after it, and not c, 0.4 before
    resampler.finish();
    expect(out).toEqual(["a", "a", "b", "c", "c", "c", "c", "d", "d", "d"]);
    expect(resampler.stats).toEqual({ frames: 10, distinct: 4, received: 4, dropped: 0 });
  });

  it("shows a paint at most half an interval before its time, and so more of a bunch of paints", () => {
    const { out, resampler } = recorder(10, 5);
    resampler.push(frame("a"), 0);
    resampler.push(frame("b"), 0.12); // slot 0.1: 0.02 ahead, nearer than a
    resampler.push(frame("c"), 0.14); // slot 0.2: nearest of the three before it
    resampler.push(frame("d"), 0.34); // slot 0.3: 0.04 ahead, within half an interval
    resampler.push(frame("e"), 0.47); // slot 0.4: d, 0.06 before, is nearer than e, 0.07 ahead
    resampler.finish();
    // The last paint at or before each slot's time would have shown a, a, c, c, d: three of five.
    expect(out).toEqual(["a", "b", "c", "d", "d"]);
    expect(resampler.stats).toEqual({ frames: 5, distinct: 4, received: 5, dropped: 0 });
  });

  it("shows at most the nearest of several paints within one output interval", () => {
    const { out, resampler } = recorder(2, 4);
    resampler.push(frame("a"), 0);
    resampler.push(frame("b"), 0.1);
    resampler.push(frame("c"), 0.2);
    resampler.push(frame("d"), 0.6);
    resampler.finish();
    // Slot 0.5: d, 0.1 after it, is nearer than c, 0.3 before: b and c reach no output frame.
    expect(out).toEqual(["a", "d", "d", "d"]);
    expect(resampler.stats.distinct).toBe(2);
    expect(resampler.stats.received).toBe(4);
  });

  it("holds frames when the page paints less often than fps, and ignores paints after the end", () => {
    const { out, resampler } = recorder(30, 60);
    for (let t = 0; t < 3; t += 0.25) resampler.push(frame(`f${t}`), 5 + t);
    resampler.finish();
    expect(out).toHaveLength(60);
    expect(new Set(out).size).toBe(8);
    expect(resampler.stats.distinct).toBe(8);
    // f0.25 shows from slot 7 (at 0.2333 s, half an interval before it), f0 before that.
    expect(out.slice(0, 7).every((f) => f === "f0")).toBe(true);
    expect(out[7]).toBe("f0.25");
  });

  it("emits held frames as time passes (advance) so encoding runs during a static stretch", () => {
    const { out, resampler } = recorder(10, 20);
    resampler.advance(50); // before the first frame: nothing
    resampler.push(frame("a"), 50);
    resampler.advance(50.55); // a frame painted from 50.55 on could still show from slot 0.5 on
    expect(out).toEqual(["a", "a", "a", "a", "a"]);
    resampler.push(frame("late"), 50.52); // a frame older than advance() said: shown from now on
    resampler.push(frame("b"), 50.8);
    resampler.finish();
    expect(out).toEqual([..."aaaaa", "late", "late", "late", ..."b".repeat(12)]);
    expect(resampler.done).toBe(true);
  });

  it("does not count an image identical to the previous one as a new frame", () => {
    const { resampler } = recorder(10, 10);
    resampler.push(frame("same"), 0);
    resampler.push(frame("same"), 0.35);
    resampler.push(frame("other"), 0.65);
    resampler.finish();
    expect(resampler.stats.distinct).toBe(2);
  });

  it("counts images the emitter refused as dropped, keeping the frame count", () => {
    const { out, resampler } = recorder(10, 6, (data) => data.toString() !== "b");
    resampler.push(frame("a"), 0);
    resampler.push(frame("b"), 0.2);
    resampler.push(frame("c"), 0.4);
    resampler.finish();
    expect(out).toEqual(["a", "a", "a", "a", "c", "c"]);
    expect(resampler.stats).toEqual({ frames: 6, distinct: 2, received: 3, dropped: 1 });
  });

  it("refuses to finish without a frame", () => {
    expect(() => recorder(30, 30).resampler.finish()).toThrow(/no frame/);
  });
});
