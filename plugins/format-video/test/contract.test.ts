// The core's formatter contract, run for mp4 and webm on both engines. Short, small videos: the
// suite renders each format twice and cuts one render of each with global_timeout. Runs alone
// (scripts/test.sh SOLO): the screencast follows the page's paints in real time.
import { FIXTURE_BACKGROUND, type FormatterSample, formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { videoFormats } from "@renderkit/format-video";
import { expect, it } from "vitest";
import { noFfmpegLeft } from "./helpers.js";
import { distance, frameAt, probe } from "./media.js";

const SIZE = { width: 320, height: 240 };

/** A 1 s video of `codec` at the viewport's size whose middle frame shows the fixture's background. */
function sample(codec: string, wrongCodec: string): FormatterSample {
  return {
    options: { ...SIZE, video_duration: 1, video_fps: 10 },
    async check(_bytes, result) {
      expect(result.path, "the default storage is on this machine").toBeTypeOf("string");
      const file = result.path as string;
      const info = await probe(file);
      expect(info).toMatchObject({ codec, ...SIZE });
      expect(info.duration).toBeGreaterThan(0.5);
      expect(info.duration).toBeLessThan(1.5);
      const pixel = await frameAt(file, 0.5);
      expect(distance(pixel(SIZE.width - 8, SIZE.height - 8), FIXTURE_BACKGROUND)).toBeLessThanOrEqual(16);
    },
    // A codec the container cannot hold is the formatter's own refusal, naming the option.
    invalid: [{ options: { video_codec: wrongCodec }, option: "video_codec" }],
  };
}

for (const [name, engine] of [
  ["playwright", playwright],
  ["puppeteer", puppeteer],
] as const) {
  formatterContract({
    name: `@renderkit/format-video on ${name}`,
    plugin: () => videoFormats(),
    engine: () => engine(),
    samples: { mp4: sample("h264", "vp9"), webm: sample("vp9", "h264") },
    testTimeoutMs: 120_000,
  });
}

it("leaves no ffmpeg process behind, the cut renders included", async () => {
  expect(await noFfmpegLeft()).toEqual([]);
});
