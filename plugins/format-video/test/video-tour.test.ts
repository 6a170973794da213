// The scroll tour's options (issue 11), on both engines, checked in the videos' frames. The page is
// one vertical grey gradient, so the grey of the frame's middle row says how far the page was
// scrolled. Checks are at phase midpoints with tolerances for a busy machine (a frame shows the
// page's paint nearest its time, which may be a few frames old when the page is starved), never on
// elapsed time. Runs alone in CI (SOLO).
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { videoFormats } from "@renderkit/format-video";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../../../test/helpers/setup.js";
import { allFrames, probe } from "./media.js";

/** Height of the gradient page in CSS pixels; the viewport is 640×360, so the bottom is at 1640. */
const PAGE = 2000;
const VIEW = 360;
const BOTTOM = PAGE - VIEW;
const GRADIENT_PAGE = `<!doctype html><title>gradient</title>
<style>html,body{margin:0}::-webkit-scrollbar{display:none}
#g{height:${PAGE}px;background:linear-gradient(to bottom,#000 0,#fff ${PAGE}px)}</style><div id=g></div>`;

/**
 * How far the page was scrolled (CSS pixels) in each frame of a video: the mean grey of the frame's
 * middle rows (the middle of the viewport, also when video_aspect cut the sides), mapped back
 * through the gradient. Every frame is decoded (no seeking), so index i is the frame at i / fps s.
 * Averaging whole rows evens out Chromium's gradient dithering and the codecs' noise.
 */
async function scrollPositions(file: string): Promise<number[]> {
  const { width, height, frames } = await allFrames(file);
  return frames.map((frame) => {
    let sum = 0;
    for (const row of [height / 2 - 1, height / 2]) {
      for (let x = 0; x < width; x++) {
        const at = (row * width + x) * 3;
        sum += (frame[at]! + frame[at + 1]! + frame[at + 2]!) / 3;
      }
    }
    return Math.round((sum / (2 * width) / 255) * PAGE - VIEW / 2);
  });
}

/** Positions at `seconds` (negative: from the end) of a video at `fps`. */
function at(positions: number[], fps: number, seconds: number): number {
  const index = seconds < 0 ? positions.length + Math.round(seconds * fps) : Math.round(seconds * fps);
  return positions[index]!;
}

/**
 * Checks a moving tour against `expected(t)` (CSS pixels at t seconds) on a busy machine. A frame
 * shows the page's paint nearest its time, at most half a frame interval after it, placed by the
 * paint's timestamp, so every frame that shows a new position (a fresh paint) is where the tour was
 * at its time, give or take `tolerance` and that half interval, or somewhat behind: a starved page
 * runs its scroll steps late, never early. So each fresh frame must lie between the tour `BEHIND`
 * seconds earlier and the tour half an interval later. A different
 * easing lands ahead of that window somewhere (for instance sine vs linear: 10% of the way at the
 * quarter points). At least 10 fresh frames must be seen, so the check cannot pass on a frozen video.
 */
const BEHIND = 0.75;
function expectTour(positions: number[], expected: (t: number) => number, tolerance: number, fps = 10): void {
  let fresh = 0;
  const report = `(all frames: ${positions.join(" ")})`;
  for (let i = 1; i < positions.length; i++) {
    if (Math.abs(positions[i]! - positions[i - 1]!) <= 8) continue;
    fresh++;
    const t = i / fps;
    const [now, before] = [expected(t + 0.5 / fps), expected(Math.max(0, t - BEHIND))];
    const [low, high] = [Math.min(now, before) - tolerance, Math.max(now, before) + tolerance];
    expect(
      positions[i],
      `frame ${i} (${t} s) should be within ${Math.round(low)}..${Math.round(high)} ${report}`,
    ).toBeGreaterThanOrEqual(low);
    expect(
      positions[i],
      `frame ${i} (${t} s) should be within ${Math.round(low)}..${Math.round(high)} ${report}`,
    ).toBeLessThanOrEqual(high);
  }
  expect(fresh, `fresh frames ${report}`).toBeGreaterThanOrEqual(10);
}

forEachEngine((engine) => {
  let fixture: FixtureServer;
  let started: TestRenderer;
  const once = onOneEngine(engine);

  beforeAll(async () => {
    fixture = await startFixtureServer({ "/gradient": GRADIENT_PAGE });
    started = await startRenderer([`127.0.0.1:${fixture.port}`], { maxAttempts: 1 }, engine, [videoFormats()]);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const video = (options: Record<string, unknown>) =>
    started.renderer.render({ url: `${fixture.url}/gradient`, width: 640, height: VIEW, video_fps: 10, ...options });

  /** Positions at `times` (s), from a video at 10 fps, with a message for failed assertions. */
  const sample = (positions: number[], times: number[]) => {
    const seen = times.map((t) => at(positions, 10, t));
    return { seen, message: `at ${times.join(", ")} s: ${seen.join(", ")} px (all frames: ${positions.join(" ")})` };
  };

  it("the gradient reads back as the scroll position (the measure the other tests rely on)", async () => {
    const result = await video({ format: "mp4", video_duration: 1, scroll_to: 800 });
    const { seen, message } = sample(await scrollPositions(result.path as string), [0.5]);
    expect(Math.abs(seen[0]! - 800), message).toBeLessThan(30);
  });

  it("phases, linear easing, scroll back: 0.5 s still, 4 s down evenly, 1 s rest, 2 s back, 1 s still", async () => {
    const result = await video({
      format: "mp4",
      video_scroll: true,
      video_scroll_back: true,
      video_ease: "linear.none",
      video_prescroll_duration: 500,
      video_scroll_duration: 4000,
      video_rest_duration: 1000,
      video_scroll_back_duration: 2000,
      video_postscroll_duration: 1000,
    });
    expect(result).toMatchObject({ frames: 85, duration: 8.5, width: 640, height: VIEW });
    expect(result.truncated).toBeUndefined();
    const path = result.path as string;
    expect(await probe(path)).toMatchObject({ frames: 85, width: 640, height: VIEW });
    const positions = await scrollPositions(path);
    // Still phases, near their ends (after any late frame): at the top, at the bottom, at the top again.
    const still = sample(positions, [0, 0.4, 5.3, 8.3, -0.1]);
    for (const [i, target] of [0, 0, BOTTOM, 0, 0].entries()) {
      expect(Math.abs(still.seen[i]! - target), still.message).toBeLessThan(30);
    }
    // Linear: i/4 of the way i seconds into the scroll down, the same back up.
    const linear = (t: number) =>
      t < 0.5 ? 0 : t < 4.5 ? ((t - 0.5) / 4) * BOTTOM : t < 5.5 ? BOTTOM : t < 7.5 ? (1 - (t - 5.5) / 2) * BOTTOM : 0;
    expectTour(positions, linear, 0.05 * BOTTOM);
  });

  it("video_scroll_distance, quadratic.in, video_aspect: a 200×200 webm that stops 800 px down", async () => {
    const result = await video({
      format: "webm",
      full_page: true,
      video_scroll_distance: 800,
      video_ease: "quadratic.in",
      video_prescroll_duration: 500,
      video_scroll_duration: 2000,
      video_duration: 3.5,
      video_width: 200,
      video_aspect: "1:1",
    });
    expect(result).toMatchObject({ frames: 35, width: 200, height: 200, codec: "vp9" });
    expect(result.truncated).toBeUndefined();
    const path = result.path as string;
    expect(await probe(path)).toMatchObject({ frames: 35, width: 200, height: 200 });
    const positions = await scrollPositions(path);
    const { seen, message } = sample(positions, [0, 0.4, 3.3, -0.1]);
    for (const [i, target] of [0, 0, 800, 800].entries()) expect(Math.abs(seen[i]! - target), message).toBeLessThan(30);
    // Slow first: half the time, a quarter of the way (linear would be at 400, ahead of the window).
    const quadratic = (t: number) => (t < 0.5 ? 0 : t < 2.5 ? ((t - 0.5) / 2) ** 2 * 800 : 800);
    expectTour(positions, quadratic, 40);
  });

  it("with disable_js the tour (down and back) is driven from outside the page", async () => {
    const result = await video({
      format: "mp4",
      video_scroll: true,
      video_scroll_back: true,
      video_prescroll_duration: 300,
      video_scroll_duration: 1000,
      video_rest_duration: 1000,
      video_scroll_back_duration: 1000,
      video_postscroll_duration: 1000,
      disable_js: true,
    });
    expect(result).toMatchObject({ frames: 43 });
    const { seen, message } = sample(await scrollPositions(result.path as string), [0, 2.2, -0.1]);
    for (const [i, target] of [0, BOTTOM, 0].entries()) expect(Math.abs(seen[i]! - target), message).toBeLessThan(30);
  });

  once("refused combinations: 400 InvalidOptions naming the option, before the page loads", async () => {
    const before = fixture.requestsTo("/gradient").length;
    const cases: [string, Record<string, unknown>][] = [
      ["video_dont_scroll_back", { video_scroll: true, video_scroll_back: true, video_dont_scroll_back: true }],
      ["video_scroll_back", { video_scroll_back: true }],
      ["video_ease_end", { video_scroll: true, video_ease_end: "bounce.out" }],
      ["video_duration", { video_scroll: true, video_duration: 2, video_scroll_duration: 3000 }],
      ["video_aspect", { video_width: 640, video_height: 640, video_aspect: "16:9" }],
      ["video_bits_per_second", { video_bitrate: 500, video_bits_per_second: 1_000_000 }],
    ];
    for (const [option, options] of cases) {
      await expect(video({ format: "mp4", ...options }), option).rejects.toMatchObject({
        code: "InvalidOptions",
        message: expect.stringMatching(new RegExp(`^Option ${option} `)),
        details: { option },
      });
    }
    expect(fixture.requestsTo("/gradient").length).toBe(before);
  });
});
