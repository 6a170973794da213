import { CORE_OPTIONS, type OptionRule, RenderError, type RenderOptions, snakeName } from "@renderkit/core";

type Options = RenderOptions & Record<string, unknown>;

/**
 * True when the request set `name` to something other than its default: options of other parts
 * are looked up by name, so a rule holds for them as soon as they exist (and never before).
 */
function given(options: Options, name: string): boolean {
  const value = options[name];
  if (value === undefined || value === false) return false;
  const spec = (CORE_OPTIONS as Record<string, { default?: unknown }>)[name];
  return spec?.default === undefined || JSON.stringify(value) !== JSON.stringify(spec.default);
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
];

/** Refuses the first rule that `options` break; throws `InvalidOptions` naming the option. */
export function checkVideoRules(options: Options, format: string): void {
  for (const rule of VIDEO_RULES) {
    if (!rule.when(options, format)) continue;
    const name = snakeName(rule.option);
    throw new RenderError("InvalidOptions", `Option ${name} ${rule.why}`, { details: { option: name } });
  }
}
