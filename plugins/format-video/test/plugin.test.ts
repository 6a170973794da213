import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { videoFormats } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

describe("videoFormats", () => {
  it("registers mp4 and webm and their options in the renderer's own container", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "rk-format-video-plugin-"));
    const renderer = await createRenderer({ plugins: [videoFormats()], dataDir, logger: new ConsoleLogger("silent") });
    try {
      expect(renderer.formats).toEqual(expect.arrayContaining(["mp4", "webm", "pdf"]));
      expect(Object.keys(renderer.optionTable)).toEqual(
        expect.arrayContaining([
          "videoFps",
          "videoDuration",
          "videoScroll",
          "videoCodec",
          "videoBitrate",
          "videoQuality",
          "videoPreset",
        ]),
      );
    } finally {
      await renderer.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses bad options when the factory is called", () => {
    expect(() => videoFormats({ ffmpegPath: "" })).toThrow(/ffmpegPath/);
    expect(() => videoFormats({ encodeTimeoutMs: 10 })).toThrow(/encodeTimeoutMs/);
    expect(() => videoFormats({ maxBufferedBytes: 1.5 })).toThrow(/maxBufferedBytes/);
  });
});
