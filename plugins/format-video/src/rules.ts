import { type OptionRule, RenderError, type RenderOptions, snakeName } from "@renderkit/core";
import { CORE_OPTIONS } from "@renderkit/core/internal";
import { aspectAgrees, parseAspect } from "./geometry.js";
import { tourTiming } from "./tour-options.js";

type Options = RenderOptions & Record<string, unknown>;

/**
 * Defaults of the image formats' options this plugin refuses (`@renderkit/format-image` declares
 * them; a formatter sees values, not the merged table): `quality=80`, which clients send on every
 * request, is the default and not refused.
 */
const IMAGE_DEFAULTS: Readonly<Record<string, unknown>> = { quality: 80 };

/**
 * True when the request set `name` to something other than its default: options of other parts
 * are looked up by name, so a rule holds for them as soon as they exist (and never before).
 */
function given(options: Options, name: string): boolean {
  const value = options[name];
  if (value === undefined || value === false) return false;
  const spec = (CORE_OPTIONS as Record<string, { default?: unknown }>)[name];
  const fallback = spec?.default ?? IMAGE_DEFAULTS[name];
  return fallback === undefined || JSON.stringify(value) !== JSON.stringify(fallback);
}

const imageOnly = (option: string, why: string): OptionRule => ({
  option,
  when: (options) => given(options, option),
  why: `cannot be used with mp4/webm: ${why}`,
});

/**
 * Options that mp4/webm cannot honour, refused with 400 `InvalidOptions` naming the option
 * (checked by `VideoFormatter.validate`, before anything is queued). Each would otherwise be
 * accepted and do nothing to a video. The core's image rules (`IMAGE_RULES`) already refuse the
 * other image-only options on every non-image format, video included: `clip`, `full_width`,
 * `max_width`/`crop_width`, `bg_color`, `img_fit`, `img_position`, `img_bg`, `img_pad`,
 * `force_dpr`, `full_page_mode: native`, `show_timestamp`, `show_url`.
 */
const tour = (options: Options) => options.fullPage || options.videoScroll === true;

/** Options that shape the scroll tour: without `video_scroll`/`full_page` there is none to shape. */
const TOUR_ONLY = [
  "videoScrollBack",
  "videoEase",
  "videoEaseEnd",
  "videoPrescrollDuration",
  "videoScrollDuration",
  "videoRestDuration",
  "videoScrollBackDuration",
  "videoPostscrollDuration",
  "videoScrollDistance",
] as const;

const tourOnly = TOUR_ONLY.map(
  (option): OptionRule => ({
    option,
    when: (options) => options[option] !== undefined && options[option] !== false && !tour(options),
    why: "shapes the scrolling tour of mp4/webm: it needs video_scroll or full_page",
  }),
);

const backOnly = (["videoEaseEnd", "videoScrollBackDuration"] as const).map(
  (option): OptionRule => ({
    option,
    when: (options) => options[option] !== undefined && options.videoScrollBack !== true && tour(options),
    why: "applies to the scroll back up: it needs video_scroll_back",
  }),
);

/** Rules of the tour, the size and the bitrate options. */
const SHAPE_RULES: readonly OptionRule[] = [
  {
    option: "videoDontScrollBack",
    when: (options) => options.videoDontScrollBack === true && options.videoScrollBack === true,
    why: "cannot be used with video_scroll_back: one asks for the scroll back, the other refuses it",
  },
  ...tourOnly,
  ...backOnly,
  {
    option: "videoDuration",
    when: (options) => tour(options) && tourTiming(options, true).conflict !== undefined,
    why: "disagrees with the tour's phase durations: they set the video's length (leave video_duration out), and with video_duration their sum must fit in it, or equal it when all five are given",
  },
  {
    option: "videoAspect",
    when: (options) => {
      const aspect = typeof options.videoAspect === "string" ? parseAspect(options.videoAspect) : undefined;
      const { videoWidth: w, videoHeight: h } = options as { videoWidth?: number; videoHeight?: number };
      return aspect !== undefined && w !== undefined && h !== undefined && !aspectAgrees(w, h, aspect);
    },
    why: "disagrees with video_width and video_height: give one size and the aspect ratio, or both sizes",
  },
  {
    option: "videoBitsPerSecond",
    when: (options) =>
      typeof options.videoBitsPerSecond === "number" &&
      typeof options.videoBitrate === "number" &&
      Math.round(options.videoBitsPerSecond / 1000) !== options.videoBitrate,
    why: "disagrees with video_bitrate (kbit/s): give one of them",
  },
];

export const VIDEO_RULES: readonly OptionRule[] = [
  {
    option: "selector",
    when: (options) => Boolean(options.selector) && (options.fullPage || options.videoScroll === true),
    why: "cannot be used with full_page or video_scroll on mp4/webm: a selector video records one element in place, a full-page video scrolls the page; ask for one of them",
  },
  imageOnly("transparent", "H.264, VP9 and VP8 in yuv420p have no alpha channel"),
  imageOnly("quality", "it sets the JPEG, WebP and AVIF quality; use video_quality (or video_bitrate)"),
  imageOnly("thumbWidth", "it resizes images; use video_width"),
  imageOnly("thumbHeight", "it resizes images; use video_height"),
  ...SHAPE_RULES,
];

/** Refuses the first rule that `options` break; throws `InvalidOptions` naming the option. */
export function checkVideoRules(options: Options, format: string): void {
  for (const rule of VIDEO_RULES) {
    if (!rule.when(options, format)) continue;
    const name = snakeName(rule.option);
    throw new RenderError("InvalidOptions", `Option ${name} ${rule.why}`, { details: { option: name } });
  }
}
