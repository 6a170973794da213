import { bool, num, oneOf, RenderError, type RenderOptions, snakeName } from "@renderkit/core";
import { DEFAULT_EASING, EASING_SYNONYMS, EASINGS, type Easing } from "./easing.js";

type Options = RenderOptions & Record<string, unknown>;

/** Length of a video when nothing sets it (`video_duration`'s default), in seconds. */
export const DEFAULT_DURATION = 5;
/** Shortest and longest video, in seconds (`video_duration`'s bounds; a tour's phases must add up to this). */
export const MIN_DURATION = 1;
export const MAX_DURATION = 60;

const phase = (doc: string) => num(doc, { min: 0, max: MAX_DURATION * 1000, integer: true });

/** The options of the scroll tour (`video_scroll` / `full_page` on mp4/webm). */
export const TOUR_OPTIONS = {
  videoScrollBack: bool(
    "With `video_scroll`/`full_page` on mp4/webm: after the scroll down and the rest at the bottom, scroll back up to the top (eased by `video_ease_end`) and stay there for `video_postscroll_duration`. Not with `video_dont_scroll_back`; needs a tour.",
    { default: false },
  ),
  videoDontScrollBack: bool(
    "The tour ends at the bottom (the default): the negation of `video_scroll_back`, accepted for clients that send it; both together are refused.",
    { default: false },
  ),
  videoEase: oneOf(
    "Easing of the tour's scroll down (mp4/webm with `video_scroll`/`full_page`), tween.js's names: `linear.none`, or quadratic, cubic, quartic, quintic, sinusoidal, exponential, circular, elastic, back, bounce with `.in`, `.out` or `.inout`. Default `sinusoidal.inout`. Elastic and back overshoot: past the bottom the page stops at its end.",
    EASINGS,
    { synonyms: EASING_SYNONYMS },
  ),
  videoEaseEnd: oneOf(
    "Easing of the tour's scroll back up (`video_scroll_back`), same names as `video_ease`; default: `video_ease`'s. Without `video_scroll_back` it is refused (there is no scroll back to ease).",
    EASINGS,
    { synonyms: EASING_SYNONYMS },
  ),
  videoPrescrollDuration: phase(
    "Tour phase, ms: still at the top before scrolling. With any tour phase duration given, the phases set the video's length: those not given take their share of 5 s (10% still, 80% scroll down, 10% rest; with `video_scroll_back` 10/35/10/35/10%), or, with `video_duration` also given, share what the given ones leave of it (a sum longer than `video_duration`, or all phases given and a different `video_duration`, is refused). The video is 1 to 60 s.",
  ),
  videoScrollDuration: phase(
    "Tour phase, ms: the scroll down (see `video_prescroll_duration` for how the phases and `video_duration` combine).",
  ),
  videoRestDuration: phase(
    "Tour phase, ms: still at the bottom after the scroll down (see `video_prescroll_duration`). Without `video_scroll_back` the video ends at the bottom, after `video_rest_duration` + `video_postscroll_duration`.",
  ),
  videoScrollBackDuration: phase(
    "Tour phase, ms: the scroll back up; needs `video_scroll_back` (see `video_prescroll_duration`).",
  ),
  videoPostscrollDuration: phase(
    "Tour phase, ms: still at the end: at the top after `video_scroll_back`, else more rest at the bottom (see `video_prescroll_duration`).",
  ),
  videoScrollDistance: num(
    "With `video_scroll`/`full_page` on mp4/webm: the tour scrolls down this many CSS pixels (then rests, and scrolls back with `video_scroll_back`) instead of to the bottom of the page; a shorter page, or `max_height`, still ends it earlier.",
    { min: 1, max: 100_000, integer: true },
  ),
} as const;

/** The phases of a tour, in milliseconds from the video's first frame, and how it moves. */
export interface TourPlan {
  prescrollMs: number;
  scrollMs: number;
  restMs: number;
  /** 0 without `video_scroll_back`. */
  backMs: number;
  postscrollMs: number;
  scrollBack: boolean;
  ease: Easing;
  easeEnd: Easing;
  /** CSS pixels to scroll down; absent: to the bottom. */
  distance?: number;
  /** Deepest point, in CSS pixels from the top (`max_height`). */
  limit: number;
}

const PHASES = [
  ["prescrollMs", "videoPrescrollDuration"],
  ["scrollMs", "videoScrollDuration"],
  ["restMs", "videoRestDuration"],
  ["backMs", "videoScrollBackDuration"],
  ["postscrollMs", "videoPostscrollDuration"],
] as const;
type Phase = (typeof PHASES)[number][0];

/** Shares of the video each phase takes when not given (the first round's tour: 10% still, 80% scroll, 10% still). */
const SHARES: Record<"down" | "back", Record<Phase, number>> = {
  down: { prescrollMs: 0.1, scrollMs: 0.8, restMs: 0.1, backMs: 0, postscrollMs: 0 },
  back: { prescrollMs: 0.1, scrollMs: 0.35, restMs: 0.1, backMs: 0.35, postscrollMs: 0.1 },
};

/** Names of the phase durations the request gave (camelCase). */
export function givenPhases(options: Options): string[] {
  return PHASES.map(([, option]) => option).filter((option) => options[option] !== undefined);
}

/**
 * The length of the video in ms and, for a tour, its phases. Without phase durations it is
 * `video_duration` (default 5 s) in the default shares. With some: see `videoPrescrollDuration`'s
 * doc. Returns `conflict` instead when the phases and `video_duration` disagree.
 */
export function tourTiming(
  options: Options,
  tour: boolean,
): { totalMs: number; phases?: Record<Phase, number>; conflict?: string } {
  const duration = options.videoDuration as number | undefined;
  if (!tour) return { totalMs: (duration ?? DEFAULT_DURATION) * 1000 };
  const shares = SHARES[options.videoScrollBack === true ? "back" : "down"];
  const phases = {} as Record<Phase, number>;
  let fixed = 0;
  let missingShare = 0;
  for (const [key, option] of PHASES) {
    const value = options[option] as number | undefined;
    if (value === undefined) missingShare += shares[key];
    else fixed += value;
  }
  const totalMs = duration === undefined ? undefined : duration * 1000;
  const given = givenPhases(options).length;
  if (totalMs !== undefined && given > 0) {
    if (fixed > totalMs)
      return { totalMs, conflict: `the tour's phase durations add up to ${fixed} ms, more than video_duration ${duration} s` };
    if (given === PHASES.length && fixed !== totalMs) {
      return { totalMs, conflict: `the tour's five phase durations add up to ${fixed} ms, not video_duration ${duration} s` };
    }
  }
  for (const [key, option] of PHASES) {
    const value = options[option] as number | undefined;
    if (value !== undefined) phases[key] = value;
    // Without video_duration a phase not given takes its share of the default video.
    else if (totalMs === undefined) phases[key] = Math.round(shares[key] * DEFAULT_DURATION * 1000);
    // With it, the phases not given share what is left; a remainder no share takes is more stillness at the end.
    else if (missingShare > 0) phases[key] = Math.round(((totalMs - fixed) * shares[key]) / missingShare);
    else phases[key] = key === "postscrollMs" ? totalMs - fixed : 0;
  }
  const sum = PHASES.reduce((total, [key]) => total + phases[key], 0);
  return { totalMs: totalMs ?? sum, phases };
}

function invalid(option: string, message: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${message}`, { details: { option } });
}

/** The tour of a request (`video_scroll` / `full_page`) and the video's length; throws `InvalidOptions`. */
export function planTour(options: Options, tour: boolean): { totalMs: number; tour?: TourPlan } {
  const timing = tourTiming(options, tour);
  if (timing.conflict) throw invalid("video_duration", timing.conflict);
  const seconds = timing.totalMs / 1000;
  if (seconds < MIN_DURATION || seconds > MAX_DURATION) {
    const name = snakeName(givenPhases(options)[0] ?? "videoDuration");
    throw invalid(name, `makes a ${seconds} s video; the tour's phases must add up to ${MIN_DURATION} to ${MAX_DURATION} s`);
  }
  if (!timing.phases) return { totalMs: timing.totalMs };
  const ease = (options.videoEase as Easing | undefined) ?? DEFAULT_EASING;
  return {
    totalMs: timing.totalMs,
    tour: {
      ...timing.phases,
      scrollBack: options.videoScrollBack === true,
      ease,
      easeEnd: (options.videoEaseEnd as Easing | undefined) ?? ease,
      distance: options.videoScrollDistance as number | undefined,
      limit: options.maxHeight,
    },
  };
}
