import { EASING_SOURCE, easingFunction } from "./easing.js";
import type { TourPlan } from "./tour-options.js";

/**
 * JavaScript source of `(tour, ms, ease) => fraction`: where the tour is `ms` after the video's
 * first frame, as a fraction of its scroll target (0 the top, 1 the bottom or `distance`; elastic
 * and back easings go past both). `ease` is `EASING_SOURCE`'s table.
 */
export const TOUR_FRACTION_SOURCE = `(tour, ms, ease) => {
  let t = ms - tour.prescrollMs;
  if (t <= 0) return 0;
  if (t < tour.scrollMs) return ease[tour.ease](t / tour.scrollMs);
  t -= tour.scrollMs + tour.restMs;
  if (t <= 0 || !tour.scrollBack) return 1;
  if (t < tour.backMs) return 1 - ease[tour.easeEnd](t / tour.backMs);
  return 0;
}`;

/** The scroll target in the page: to the bottom (read at every step, so a page that grows is followed), at most `limit` and `distance`. */
const TARGET_SOURCE = `(tour) => {
  const el = document.scrollingElement || document.documentElement;
  const bottom = Math.max(0, Math.min(el.scrollHeight, tour.limit) - window.innerHeight);
  return tour.distance === undefined ? bottom : Math.min(bottom, tour.distance);
}`;

/**
 * The tour in the page: from `elapsedMs` into the video to its end, one scroll position every
 * 16 ms. Steps are timers, not animation frames: a page that produces no frames (some headless
 * builds while a screencast runs) gets no animation frame callbacks either. `elapsedMs` is how far
 * the video already is when the script starts, so the tour keeps to the video's clock.
 */
export const TOUR_SCRIPT = `({ tour, elapsedMs }) => {
  const ease = ${EASING_SOURCE};
  const fraction = ${TOUR_FRACTION_SOURCE};
  const target = ${TARGET_SOURCE};
  const end = tour.prescrollMs + tour.scrollMs + tour.restMs + tour.backMs + tour.postscrollMs;
  const start = performance.now() - (elapsedMs || 0);
  const step = () => {
    const ms = performance.now() - start;
    window.scrollTo({ top: fraction(tour, Math.min(ms, end), ease) * target(tour), left: 0, behavior: "instant" });
    if (ms < end) setTimeout(step, 16);
  };
  step();
}`;

/**
 * One step of the same tour, for pages that run no timers (`disable_js`): scrolls to where the
 * tour is `ms` after the video's first frame. Evaluated from outside the page (DevTools runs it
 * even without page scripts).
 */
export const TOUR_STEP_SCRIPT = `({ tour, ms }) => {
  const ease = ${EASING_SOURCE};
  const fraction = ${TOUR_FRACTION_SOURCE};
  const target = ${TARGET_SOURCE};
  window.scrollTo({ top: fraction(tour, ms, ease) * target(tour), left: 0, behavior: "instant" });
}`;

/** Total length of a tour in ms. */
export const tourLength = (tour: TourPlan) => tour.prescrollMs + tour.scrollMs + tour.restMs + tour.backMs + tour.postscrollMs;

let fractionFn: ((tour: TourPlan, ms: number, ease: unknown) => number) | undefined;

/** Where the tour is `ms` into the video, as a fraction of its target: the page's own formula, run here (for tests). */
export function tourFraction(tour: TourPlan, ms: number): number {
  // Both sources are this package's constants, never request data.
  fractionFn ??= new Function(`return ${TOUR_FRACTION_SOURCE};`)() as typeof fractionFn;
  const ease = { [tour.ease]: easingFunction(tour.ease), [tour.easeEnd]: easingFunction(tour.easeEnd) };
  return (fractionFn as NonNullable<typeof fractionFn>)(tour, ms, ease);
}
