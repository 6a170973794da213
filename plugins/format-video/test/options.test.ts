import { parseOptions, type RenderError } from "@renderkit/core";
import { CORE_OPTIONS } from "@renderkit/core/internal";
import { ffmpegArgs, planVideo, VIDEO_OPTIONS, vp8Ceiling, x264Crf } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

const table = { ...CORE_OPTIONS, ...VIDEO_OPTIONS };
const parse = (input: Record<string, unknown>) =>
  parseOptions({ url: "https://example.com", format: "mp4", ...input }, { table, formats: ["mp4", "webm"] }).options;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as RenderError).code;
  }
  return undefined;
}

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe("video options", () => {
  it("has catalogue defaults and accepts snake_case names and the video_time alias", () => {
    const plan = planVideo(parse({ format: "mp4", video_time: "2", video_fps: 25, width: 1280, height: 720 }), "mp4");
    expect(plan).toMatchObject({ codec: "h264", fps: 25, frames: 50, duration: 2, preset: "veryfast", quality: 30 });
    expect(plan).toMatchObject({ width: 1280, height: 720, scroll: false });
    expect(planVideo(parse({ format: "webm" }), "webm")).toMatchObject({ codec: "vp9", fps: 30, frames: 150, duration: 5 });
  });

  it("refuses a codec the container cannot hold, and out-of-range values, as InvalidOptions", () => {
    expect(codeOf(() => planVideo(parse({ format: "mp4", video_codec: "vp9" }), "mp4"))).toBe("InvalidOptions");
    expect(codeOf(() => planVideo(parse({ format: "webm", video_codec: "h264" }), "webm"))).toBe("InvalidOptions");
    expect(codeOf(() => parse({ video_fps: 61 }))).toBe("InvalidOptions");
    expect(codeOf(() => parse({ video_duration: 0.5 }))).toBe("InvalidOptions");
    expect(codeOf(() => parse({ video_quality: 64 }))).toBe("InvalidOptions");
    expect(codeOf(() => parse({ video_bitrate: 50 }))).toBe("InvalidOptions");
    expect(codeOf(() => parse({ video_preset: "placebo" }))).toBe("InvalidOptions");
    expect(codeOf(() => planVideo(parse({ width: 4000, height: 4000 }), "mp4"))).toBe("InvalidOptions");
  });

  it("rounds the output size down to even pixels", () => {
    const plan = planVideo(parse({ width: 1001, height: 501, device_scale_factor: 1 }), "mp4");
    expect([plan.width, plan.height, plan.captureWidth, plan.captureHeight]).toEqual([1000, 500, 1001, 501]);
  });

  it("maps quality, bitrate and preset per codec", () => {
    const h264 = ffmpegArgs(planVideo(parse({ video_quality: 63, video_preset: "slow" }), "mp4"), "/t/o.mp4");
    expect(after(h264, "-c:v")).toBe("mjpeg");
    expect(h264.slice(h264.lastIndexOf("-c:v"))).toEqual(expect.arrayContaining(["libx264", "+faststart"]));
    expect(after(h264, "-crf")).toBe("51");
    expect(after(h264, "-preset")).toBe("slow");
    expect(h264.at(-1)).toBe("/t/o.mp4");
    expect(after(h264, "-pix_fmt")).toBe("yuv420p");

    const abr = ffmpegArgs(planVideo(parse({ video_bitrate: 2000 }), "mp4"), "o.mp4");
    expect([after(abr, "-b:v"), after(abr, "-maxrate"), after(abr, "-bufsize")]).toEqual(["2000k", "3000k", "4000k"]);
    expect(abr).not.toContain("-crf");
    const capped = ffmpegArgs(planVideo(parse({ video_bitrate: 2000, video_quality: 20 }), "mp4"), "o.mp4");
    expect([after(capped, "-crf"), after(capped, "-maxrate")]).toEqual([String(x264Crf(20)), "2000k"]);

    const vp9 = ffmpegArgs(planVideo(parse({ format: "webm", video_preset: "medium" }), "webm"), "o.webm");
    expect([after(vp9, "-deadline"), after(vp9, "-cpu-used"), after(vp9, "-crf"), after(vp9, "-b:v")]).toEqual([
      "good",
      "4",
      "30",
      "0",
    ]);
    const vp8Plan = planVideo(parse({ format: "webm", video_codec: "vp8", video_quality: 0 }), "webm");
    const vp8 = ffmpegArgs(vp8Plan, "o.webm");
    expect([after(vp8, "-deadline"), after(vp8, "-crf"), after(vp8, "-b:v")]).toEqual([
      "realtime",
      "4",
      `${vp8Ceiling(vp8Plan)}k`,
    ]);
  });

  it("maps video_quality onto x264's CRF scale", () => {
    expect([0, 30, 63].map(x264Crf)).toEqual([0, 24, 51]);
  });
});
