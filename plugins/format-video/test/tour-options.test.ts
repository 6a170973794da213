// The tour's options without a browser: phase timing, easings, aspect ratio, bitrate, refusals.
// The videos themselves are checked frame by frame in video-tour.test.ts.

import { parseOptions, type RenderError } from "@renderkit/core";
import { CORE_OPTIONS } from "@renderkit/core/internal";
import {
  EASINGS,
  easingFunction,
  ffmpegArgs,
  frameGeometry,
  parseAspect,
  tourFraction,
  VIDEO_OPTIONS,
  VideoFormatter,
} from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

const table = { ...CORE_OPTIONS, ...VIDEO_OPTIONS };
const parse = (input: Record<string, unknown>) =>
  parseOptions(
    { url: "https://example.com", format: "mp4", width: 640, height: 360, ...input },
    { table, formats: ["mp4", "webm"] },
  ).options;
const formatter = new VideoFormatter();
const validate = (input: Record<string, unknown>) =>
  formatter.validate(parse(input), { format: "mp4", extension: "mp4", contentType: "video/mp4" } as never);

/** The error `fn` throws: code, the option named, the message. */
function refusal(fn: () => unknown): { code?: string; option?: unknown; message?: string } {
  try {
    fn();
  } catch (error) {
    const e = error as RenderError;
    return { code: e.code, option: e.details?.option, message: e.message };
  }
  return {};
}

describe("tour timing", () => {
  it("without phase durations: video_duration (default 5 s) in the first round's shares", () => {
    expect(validate({ video_scroll: true }).tour).toMatchObject({
      prescrollMs: 500,
      scrollMs: 4000,
      restMs: 500,
      backMs: 0,
      postscrollMs: 0,
      scrollBack: false,
      ease: "sinusoidal.inout",
      easeEnd: "sinusoidal.inout",
      limit: 20_000,
    });
    const back = validate({ full_page: true, video_scroll_back: true, video_duration: 10, video_fps: 10 });
    expect(back).toMatchObject({ frames: 100, duration: 10 });
    expect(back.tour).toMatchObject({ prescrollMs: 1000, scrollMs: 3500, restMs: 1000, backMs: 3500, postscrollMs: 1000 });
    expect(validate({}).tour).toBeUndefined();
  });

  it("phase durations set the length; those missing take their share of 5 s", () => {
    const all = { video_prescroll_duration: 1000, video_scroll_duration: 2000, video_rest_duration: 1000 };
    const plan = validate({
      video_scroll: true,
      video_scroll_back: true,
      ...all,
      video_scroll_back_duration: 2000,
      video_fps: 10,
    });
    expect(plan).toMatchObject({ frames: 65, duration: 6.5 }); // + postscroll: 10% of 5 s
    expect(plan.tour).toMatchObject({ prescrollMs: 1000, scrollMs: 2000, restMs: 1000, backMs: 2000, postscrollMs: 500 });
    expect(validate({ video_scroll: true, video_scroll_duration: 3000, video_fps: 10 })).toMatchObject({ frames: 40 });
  });

  it("with video_duration too, the missing phases share what the given ones leave", () => {
    const plan = validate({ video_scroll: true, video_duration: 3, video_prescroll_duration: 500, video_scroll_duration: 2000 });
    expect(plan.tour).toMatchObject({ prescrollMs: 500, scrollMs: 2000, restMs: 500, postscrollMs: 0 });
    const back = validate({ video_scroll: true, video_scroll_back: true, video_time: 4, video_scroll_duration: 1000 });
    // 3 s left for 10/10/35/10 shares of the rest.
    expect(back.tour).toMatchObject({ scrollMs: 1000, prescrollMs: 462, restMs: 462, backMs: 1615, postscrollMs: 462 });
    expect(back.duration).toBe(4);
  });

  it("refuses phases that contradict video_duration or leave the 1-60 s range, naming the option", () => {
    expect(refusal(() => validate({ video_scroll: true, video_duration: 2, video_scroll_duration: 3000 }))).toMatchObject({
      code: "InvalidOptions",
      option: "video_duration",
      message: expect.stringContaining("3000 ms, more than video_duration 2 s"),
    });
    const five = {
      video_prescroll_duration: 1000,
      video_scroll_duration: 1000,
      video_rest_duration: 1000,
      video_scroll_back_duration: 1000,
      video_postscroll_duration: 1000,
    };
    expect(refusal(() => validate({ video_scroll: true, video_scroll_back: true, video_duration: 6, ...five }))).toMatchObject({
      option: "video_duration",
    });
    expect(validate({ video_scroll: true, video_scroll_back: true, video_duration: 5, ...five }).duration).toBe(5);
    expect(refusal(() => validate({ video_scroll: true, video_prescroll_duration: 60_000 }))).toMatchObject({
      option: "video_prescroll_duration",
      message: expect.stringContaining("1 to 60 s"),
    });
    expect(
      refusal(() => validate({ video_scroll: true, video_prescroll_duration: 0, video_scroll_duration: 300 })),
    ).toMatchObject({
      option: "video_prescroll_duration",
    });
  });
});

describe("easings", () => {
  it("every tween.js easing runs from 0 to 1; linear is even, quadratic.in slow first", () => {
    expect(EASINGS).toHaveLength(31);
    for (const name of EASINGS) {
      const ease = easingFunction(name);
      expect(ease(0), name).toBeCloseTo(0, 9);
      expect(ease(1), name).toBeCloseTo(1, 9);
    }
    expect(easingFunction("quadratic.in")(0.5)).toBe(0.25);
    expect(easingFunction("back.in")(0.2)).toBeLessThan(0); // overshoots, as in tween.js
    expect(parse({ video_ease: "Quadratic.InOut" }).videoEase).toBe("quadratic.inout");
    expect(parse({ video_ease: "linear" }).videoEase).toBe("linear.none");
    expect(parse({ video_ease: "cubic.in_out" }).videoEase).toBe("cubic.inout");
    expect(refusal(() => parse({ video_ease: "wobbly.in" }))).toMatchObject({ code: "InvalidOptions", option: "video_ease" });
  });

  it("the tour's position: still, eased down, rest, eased back (video_ease_end), still", () => {
    const tour = validate({
      video_scroll: true,
      video_scroll_back: true,
      video_ease: "linear.none",
      video_ease_end: "quadratic.out",
      video_prescroll_duration: 1000,
      video_scroll_duration: 2000,
      video_rest_duration: 1000,
      video_scroll_back_duration: 2000,
      video_postscroll_duration: 1000,
    }).tour!;
    const at = (ms: number) => tourFraction(tour, ms);
    expect([0, 900, 1500, 2000, 2500, 3500].map(at)).toEqual([0, 0, 0.25, 0.5, 0.75, 1]);
    expect(at(5000)).toBeCloseTo(1 - 0.75, 9); // quadratic.out at half way: 0.75 of the way back
    expect([6500, 7000].map(at)).toEqual([0, 0]);
    const down = validate({ video_scroll: true, video_ease: "linear.none" }).tour!;
    expect([4000, 4600, 5000].map((ms) => tourFraction(down, ms))).toEqual([0.875, 1, 1]);
  });
});

describe("refused combinations (400 InvalidOptions naming the option)", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["video_dont_scroll_back", { video_scroll: true, video_scroll_back: true, video_dont_scroll_back: true }],
    ["video_scroll_back", { video_scroll_back: true }],
    ["video_ease", { video_ease: "linear.none" }],
    ["video_ease_end", { video_ease_end: "linear.none" }],
    ["video_prescroll_duration", { video_prescroll_duration: 1000 }],
    ["video_scroll_distance", { video_scroll_distance: 500 }],
    ["video_ease_end", { full_page: true, video_ease_end: "bounce.out" }],
    ["video_scroll_back_duration", { full_page: true, video_scroll_back_duration: 1000 }],
    ["video_aspect", { video_width: 640, video_height: 640, video_aspect: "16:9" }],
    ["video_aspect", { video_aspect: "wide" }],
    ["video_aspect", { video_aspect: "20:1" }],
    ["video_bits_per_second", { video_bitrate: 500, video_bits_per_second: 1_000_000 }],
  ];
  for (const [option, input] of cases) {
    it(`${option}: ${JSON.stringify(input)}`, () => {
      expect(refusal(() => validate(input))).toMatchObject({
        code: "InvalidOptions",
        option,
        message: expect.stringMatching(new RegExp(`^Option ${option} `)),
      });
    });
  }

  it("accepts what agrees: the negation alone, matching sizes and bitrates", () => {
    expect(validate({ video_dont_scroll_back: true }).tour).toBeUndefined();
    expect(validate({ video_scroll: true, video_dont_scroll_back: true }).tour?.scrollBack).toBe(false);
    expect(validate({ video_width: 1280, video_height: 720, video_aspect: "16:9" })).toMatchObject({ width: 1280, height: 720 });
    expect(validate({ video_bitrate: 1000, video_bits_per_second: 1_000_000 }).bitrate).toBe(1000);
  });
});

describe("video_aspect and video_bits_per_second", () => {
  it("parses W:H, W/H and numbers within 1:16 to 16:1", () => {
    expect(parseAspect("16:9")).toBeCloseTo(16 / 9, 9);
    expect(parseAspect(" 4 / 3 ")).toBeCloseTo(4 / 3, 9);
    expect(parseAspect("1.5")).toBe(1.5);
    expect([parseAspect("0:1"), parseAspect("17"), parseAspect("16:9:1"), parseAspect("-1")]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("one size and the aspect give the other; the aspect alone cuts the frame around its centre", () => {
    const frame = { width: 640, height: 360 };
    expect(frameGeometry(frame, undefined, 320, undefined, 1)).toEqual({
      crop: { x: 140, y: 0, width: 360, height: 360 },
      width: 320,
      height: 320,
    });
    expect(frameGeometry(frame, undefined, undefined, 200, 2)).toEqual({
      crop: { x: 0, y: 20, width: 640, height: 320 },
      width: 400,
      height: 200,
    });
    expect(frameGeometry(frame, undefined, undefined, undefined, 1)).toEqual({
      crop: { x: 140, y: 0, width: 360, height: 360 },
      width: 360,
      height: 360,
    });
    expect(frameGeometry(frame, undefined, undefined, undefined, 16 / 9)).toEqual({ width: 640, height: 360 });
    expect(validate({ video_width: 320, video_aspect: 1 })).toMatchObject({ width: 320, height: 320 });
  });

  it("video_bits_per_second is the bitrate in bit/s", () => {
    const plan = validate({ video_bits_per_second: 750_000 });
    expect(plan).toMatchObject({ bitrate: 750, quality: undefined });
    const args = ffmpegArgs(plan, "/tmp/x.mp4");
    expect(args[args.indexOf("-b:v") + 1]).toBe("750k");
    expect(refusal(() => parse({ video_bits_per_second: 50_000 }))).toMatchObject({ option: "video_bits_per_second" });
  });
});
