import { definePlugin, FORMATTER } from "@renderkit/core";
import { DEFAULT_VIDEO_SETTINGS, VideoFormatter } from "./video-formatter.js";

/** Options of `videoFormats()`. */
export interface VideoFormatsOptions {
  /** ffmpeg binary. Default: `FFMPEG_PATH`, then the `ffmpeg-static` binary if installed, then `ffmpeg` on `PATH`. */
  ffmpegPath?: string;
  /** Milliseconds ffmpeg may take after the capture ends before it is killed. Default 60 000. */
  encodeTimeoutMs?: number;
  /** Bytes of distinct frames held while ffmpeg catches up (per render). Default 64 MiB. */
  maxBufferedBytes?: number;
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`videoFormats: ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/**
 * The mp4 and webm formats (Chromium screencast + ffmpeg). Options are checked when the factory is
 * called; ffmpeg is looked up at the first video render, so a renderer without ffmpeg still boots
 * and makes every other format.
 */
export const videoFormats = definePlugin((options: VideoFormatsOptions = {}) => {
  if (options.ffmpegPath !== undefined && (typeof options.ffmpegPath !== "string" || options.ffmpegPath === "")) {
    throw new TypeError("videoFormats: ffmpegPath must be a non-empty string");
  }
  const settings = {
    ffmpegPath: options.ffmpegPath,
    encodeTimeoutMs: checkInteger(
      "encodeTimeoutMs",
      options.encodeTimeoutMs ?? DEFAULT_VIDEO_SETTINGS.encodeTimeoutMs,
      1_000,
      3_600_000,
    ),
    maxBufferedBytes: checkInteger(
      "maxBufferedBytes",
      options.maxBufferedBytes ?? DEFAULT_VIDEO_SETTINGS.maxBufferedBytes,
      1024 * 1024,
      4 * 1024 ** 3,
    ),
  };
  return {
    name: "@renderkit/format-video",
    register({ provide }) {
      provide(FORMATTER, new VideoFormatter(settings));
    },
  };
});
