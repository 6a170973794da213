import { bool, num, oneOf, RenderError, type RenderOptions, str } from "@renderkit/core";
import { CODECS, type VideoCodec, type VideoFormat } from "./formats.js";
import { type FrameGeometry, frameGeometry, MAX_VIDEO_PIXELS, MAX_VIDEO_SIDE, parseAspect } from "./geometry.js";
import { DEFAULT_DURATION, MAX_DURATION, MIN_DURATION, planTour, TOUR_OPTIONS, type TourPlan } from "./tour-options.js";

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
  videoDuration: num(
    `Length of the video in seconds (mp4/webm); default ${DEFAULT_DURATION}. With tour phase durations (\`video_prescroll_duration\`...) they set the length: \`video_duration\` may then be left out, and when given it must agree with them.`,
    { min: MIN_DURATION, max: MAX_DURATION, aliases: ["video_time"] },
  ),
  videoScroll: bool(
    "Scroll smoothly from the top of the page to the bottom during the video (a full-page tour): by default still for the first and last 10%, eased (`sinusoidal.inout`) in between, down to `max_height` at most; the lazy-load pre-scroll runs first. `full_page` on mp4/webm does the same. Shaped by `video_ease`, `video_scroll_back`, `video_scroll_distance` and the phase durations (`video_prescroll_duration`...). Not with `selector`.",
    { default: false },
  ),
  ...TOUR_OPTIONS,
  videoAspect: str(
    "Aspect ratio of the mp4/webm, `W:H` (`16:9`, also `16/9`) or a number (`1.7778`), 1:16 to 16:1. With one of `video_width`/`video_height` the other side follows it; alone, the recorded area (viewport or `selector` element) is cut to it around its centre at its own scale; with both sizes it must agree with them (±1 even pixel), else refused.",
    { maxLength: 32 },
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
  videoBitrate: num(
    "Target video bitrate in kbit/s; with video_quality it is the cap instead. Also `video_bits_per_second` (bit/s).",
    {
      min: 100,
      max: 20_000,
      integer: true,
    },
  ),
  videoBitsPerSecond: num(
    "Target video bitrate in bit/s, rounded to kbit/s: the same as `video_bitrate` (kbit/s), which it must agree with when both are given.",
    { min: 100_000, max: 20_000_000, integer: true },
  ),
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
  /** The tour's phases and motion, with `scroll`. */
  tour?: TourPlan;
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

/** `video_aspect` as width / height; throws `InvalidOptions` for a malformed one. */
export function videoAspect(options: RenderOptions & Record<string, unknown>): number | undefined {
  const text = options.videoAspect as string | undefined;
  if (text === undefined || text.trim() === "") return undefined;
  const aspect = parseAspect(text);
  if (aspect === undefined) {
    throw invalid("video_aspect", `must be a ratio W:H (16:9) or a number (1.7778) from 1:16 to 16:1; got "${text}"`);
  }
  return aspect;
}

/** Validates the video options for `format` and derives the plan; throws `InvalidOptions`. */
export function planVideo(options: RenderOptions & Record<string, unknown>, format: VideoFormat): VideoPlan {
  const allowed = CODECS[format];
  const codec = (options.videoCodec as VideoCodec | undefined) ?? allowed[0]!;
  if (!allowed.includes(codec)) {
    throw invalid("video_codec", `${codec} cannot be used with format ${format}; ${format} takes ${allowed.join(" or ")}`);
  }
  const fps = (options.videoFps as number | undefined) ?? VIDEO_OPTIONS.videoFps.default;
  const scroll = options.videoScroll === true || options.fullPage;
  const { totalMs, tour } = planTour(options, scroll);
  const frames = Math.max(1, Math.round((fps * totalMs) / 1000));
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
    videoAspect(options),
  );
  const bps = options.videoBitsPerSecond as number | undefined;
  const bitrate = (options.videoBitrate as number | undefined) ?? (bps === undefined ? undefined : Math.round(bps / 1000));
  const quality = (options.videoQuality as number | undefined) ?? (bitrate === undefined ? DEFAULT_QUALITY : undefined);
  return {
    format,
    codec,
    fps,
    frames,
    duration: frames / fps,
    scroll,
    ...(tour ? { tour } : {}),
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
