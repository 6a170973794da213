import { bool, num, oneOf, RenderError, type RenderOptions } from "@renderkit/core";
import { CODECS, type VideoCodec, type VideoFormat } from "./formats.js";
import { type FrameGeometry, frameGeometry, MAX_VIDEO_PIXELS, MAX_VIDEO_SIDE } from "./geometry.js";

export { MAX_VIDEO_PIXELS } from "./geometry.js";

/** x264's preset names (`video_preset`); VP8 and VP9 map them to a deadline and cpu-used (see `encoder-args.ts`). */
export const VIDEO_PRESETS = [
  "ultrafast",
  "superfast",
  "veryfast",
  "faster",
  "fast",
  "medium",
  "slow",
  "slower",
  "veryslow",
] as const;
export type VideoPreset = (typeof VIDEO_PRESETS)[number];

/** Quality used when the request sets neither `video_quality` nor `video_bitrate` (x264 CRF 24, VP9/VP8 CRF 30). */
export const DEFAULT_QUALITY = 30;

/** The request options this package adds (names of the catalogue's Video section, in camelCase). */
export const VIDEO_OPTIONS = {
  videoFps: num("Frames per second of mp4/webm output.", { min: 1, max: 60, integer: true, default: 30 }),
  videoDuration: num("Length of the video in seconds (mp4/webm).", { min: 1, max: 60, default: 5, aliases: ["video_time"] }),
  videoScroll: bool(
    "Scroll smoothly from the top of the page to the bottom during the video (a full-page tour): still for the first and last 10%, eased in between, down to `max_height` at most; the lazy-load pre-scroll runs first. `full_page` on mp4/webm does the same. Not with `selector`.",
    { default: false },
  ),
  videoWidth: num(
    "Width of the mp4/webm in pixels (rounded down to even). Alone, the height follows the aspect ratio of what is recorded (the viewport, or the `selector` element); with `video_height`, the picture is cut to that aspect ratio around its centre and scaled to exactly that size. Default: the recorded area's own width in device pixels.",
    { min: 16, max: MAX_VIDEO_SIDE, integer: true },
  ),
  videoHeight: num(
    "Height of the mp4/webm in pixels (rounded down to even); see `video_width`. Default: the recorded area's own height in device pixels.",
    { min: 16, max: MAX_VIDEO_SIDE, integer: true },
  ),
  videoCodec: oneOf("Video codec: h264 for mp4; vp9 (default) or vp8 for webm.", ["h264", "vp9", "vp8"], {
    synonyms: { avc: "h264", x264: "h264", libx264: "h264", "libvpx-vp9": "vp9", libvpx: "vp8" },
  }),
  videoBitrate: num("Target video bitrate in kbit/s; with video_quality it is the cap instead.", {
    min: 100,
    max: 20_000,
    integer: true,
  }),
  videoQuality: num(
    "Constant quality, 0 (best) to 63 (smallest): the VP8/VP9 CRF; H.264 uses it × 51/63 as its CRF. Default 30 unless video_bitrate is set.",
    { min: 0, max: 63, integer: true },
  ),
  videoPreset: oneOf("Encoder speed preset (x264 names); VP8/VP9 map it to their deadline and cpu-used.", VIDEO_PRESETS, {
    default: "veryfast",
  }),
} as const;

/** What one video render does, derived from the request. */
export interface VideoPlan {
  format: VideoFormat;
  codec: VideoCodec;
  fps: number;
  /** Output frames: `fps × duration`, rounded. */
  frames: number;
  /** Seconds of video (`frames / fps`). */
  duration: number;
  /** A full-page tour: `video_scroll` or `full_page`. */
  scroll: boolean;
  /** Deepest point of the tour, in CSS pixels from the top (`max_height`). */
  scrollLimit: number;
  /** False with `disable_js`: the page runs no timers or animation frames, so the scroll is driven from here. */
  pageScripts: boolean;
  /** kbit/s, when asked for. */
  bitrate?: number;
  /** 0..63, when asked for (or the default when no bitrate is given). */
  quality?: number;
  preset: VideoPreset;
  /**
   * Output size in pixels: the recorded area in device pixels rounded down to even numbers, or
   * `video_width` / `video_height`. With `selector` it is final only once the element is found.
   */
  width: number;
  height: number;
  /** Part of each captured frame that is kept (device pixels); absent: the whole frame. */
  crop?: FrameGeometry["crop"];
  /** Size of the captured frames in device pixels (the screencast's bounds). */
  captureWidth: number;
  captureHeight: number;
}

function invalid(option: string, message: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${message}`, { details: { option } });
}

/** Validates the video options for `format` and derives the plan; throws `InvalidOptions`. */
export function planVideo(options: RenderOptions & Record<string, unknown>, format: VideoFormat): VideoPlan {
  const allowed = CODECS[format];
  const codec = (options.videoCodec as VideoCodec | undefined) ?? allowed[0]!;
  if (!allowed.includes(codec)) {
    throw invalid("video_codec", `${codec} cannot be used with format ${format}; ${format} takes ${allowed.join(" or ")}`);
  }
  const fps = (options.videoFps as number | undefined) ?? VIDEO_OPTIONS.videoFps.default;
  const seconds = (options.videoDuration as number | undefined) ?? VIDEO_OPTIONS.videoDuration.default;
  const frames = Math.max(1, Math.round(fps * seconds));
  const dpr = options.deviceScaleFactor;
  const captureWidth = Math.round(options.width * dpr);
  const captureHeight = Math.round(options.height * dpr);
  if (captureWidth * captureHeight > MAX_VIDEO_PIXELS) {
    throw invalid(
      "width",
      `and height at device_scale_factor ${dpr} make ${captureWidth}×${captureHeight} pixels per frame; videos allow at most ${MAX_VIDEO_PIXELS} (3840×2160)`,
    );
  }
  const geometry = frameGeometry(
    { width: captureWidth, height: captureHeight },
    undefined,
    options.videoWidth as number | undefined,
    options.videoHeight as number | undefined,
  );
  const bitrate = options.videoBitrate as number | undefined;
  const quality = (options.videoQuality as number | undefined) ?? (bitrate === undefined ? DEFAULT_QUALITY : undefined);
  return {
    format,
    codec,
    fps,
    frames,
    duration: frames / fps,
    scroll: options.videoScroll === true || options.fullPage,
    scrollLimit: options.maxHeight,
    pageScripts: options.disableJs !== true,
    bitrate,
    quality,
    preset: (options.videoPreset as VideoPreset | undefined) ?? VIDEO_OPTIONS.videoPreset.default,
    ...geometry,
    captureWidth,
    captureHeight,
  };
}
