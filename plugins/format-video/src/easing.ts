/**
 * The easings of the scroll tour (`video_ease`, `video_ease_end`), tween.js's functions under
 * tween.js's names in lower case (`quadratic.inout`). They are kept as JavaScript source, not as
 * TypeScript functions: the same text runs in the page (the tour is a timer-driven script there)
 * and here (`easingFunction`, for tests and the tour driven from outside the page), so the two
 * cannot drift apart and no transpiler rewrites what the page receives.
 */

const FAMILIES = [
  "quadratic",
  "cubic",
  "quartic",
  "quintic",
  "sinusoidal",
  "exponential",
  "circular",
  "elastic",
  "back",
  "bounce",
] as const;

/** Every easing name: `linear.none`, then each family × `.in`, `.out`, `.inout`. */
export const EASINGS = [
  "linear.none",
  ...FAMILIES.flatMap((family) => [`${family}.in`, `${family}.out`, `${family}.inout`] as const),
] as ReadonlyArray<"linear.none" | `${(typeof FAMILIES)[number]}.${"in" | "out" | "inout"}`>;
export type Easing = (typeof EASINGS)[number];

/** The tour's easing when none is asked for (the first round's tour): a sine in and out. */
export const DEFAULT_EASING: Easing = "sinusoidal.inout";

/** Other spellings clients use (matched case-insensitively): `linear`, `quadratic.in_out`, `quadratic.in-out`. */
export const EASING_SYNONYMS: Readonly<Record<string, Easing>> = Object.fromEntries([
  ["linear", "linear.none"],
  ...FAMILIES.flatMap((family) => [
    [`${family}.in_out`, `${family}.inout` as Easing],
    [`${family}.in-out`, `${family}.inout` as Easing],
  ]),
]);

/**
 * JavaScript source of an expression: an object from each easing name to `(k) => number`, from 0
 * at k = 0 to 1 at k = 1 (elastic and back overshoot on the way). tween.js 23's definitions.
 */
export const EASING_SOURCE = `(() => {
  const bounceOut = (k) => k < 1 / 2.75 ? 7.5625 * k * k
    : k < 2 / 2.75 ? 7.5625 * (k -= 1.5 / 2.75) * k + 0.75
    : k < 2.5 / 2.75 ? 7.5625 * (k -= 2.25 / 2.75) * k + 0.9375
    : 7.5625 * (k -= 2.625 / 2.75) * k + 0.984375;
  const bounceIn = (k) => 1 - bounceOut(1 - k);
  const s = 1.70158, s2 = 1.70158 * 1.525;
  return {
    "linear.none": (k) => k,
    "quadratic.in": (k) => k * k,
    "quadratic.out": (k) => k * (2 - k),
    "quadratic.inout": (k) => (k *= 2) < 1 ? 0.5 * k * k : -0.5 * (--k * (k - 2) - 1),
    "cubic.in": (k) => k * k * k,
    "cubic.out": (k) => --k * k * k + 1,
    "cubic.inout": (k) => (k *= 2) < 1 ? 0.5 * k * k * k : 0.5 * ((k -= 2) * k * k + 2),
    "quartic.in": (k) => k * k * k * k,
    "quartic.out": (k) => 1 - --k * k * k * k,
    "quartic.inout": (k) => (k *= 2) < 1 ? 0.5 * k * k * k * k : -0.5 * ((k -= 2) * k * k * k - 2),
    "quintic.in": (k) => k * k * k * k * k,
    "quintic.out": (k) => --k * k * k * k * k + 1,
    "quintic.inout": (k) => (k *= 2) < 1 ? 0.5 * k * k * k * k * k : 0.5 * ((k -= 2) * k * k * k * k + 2),
    "sinusoidal.in": (k) => 1 - Math.sin(((1 - k) * Math.PI) / 2),
    "sinusoidal.out": (k) => Math.sin((k * Math.PI) / 2),
    "sinusoidal.inout": (k) => 0.5 * (1 - Math.sin(Math.PI * (0.5 - k))),
    "exponential.in": (k) => k === 0 ? 0 : Math.pow(1024, k - 1),
    "exponential.out": (k) => k === 1 ? 1 : 1 - Math.pow(2, -10 * k),
    "exponential.inout": (k) => k === 0 ? 0 : k === 1 ? 1
      : (k *= 2) < 1 ? 0.5 * Math.pow(1024, k - 1) : 0.5 * (-Math.pow(2, -10 * (k - 1)) + 2),
    "circular.in": (k) => 1 - Math.sqrt(1 - k * k),
    "circular.out": (k) => Math.sqrt(1 - --k * k),
    "circular.inout": (k) => (k *= 2) < 1 ? -0.5 * (Math.sqrt(1 - k * k) - 1) : 0.5 * (Math.sqrt(1 - (k -= 2) * k) + 1),
    "elastic.in": (k) => k === 0 ? 0 : k === 1 ? 1 : -Math.pow(2, 10 * (k - 1)) * Math.sin((k - 1.1) * 5 * Math.PI),
    "elastic.out": (k) => k === 0 ? 0 : k === 1 ? 1 : Math.pow(2, -10 * k) * Math.sin((k - 0.1) * 5 * Math.PI) + 1,
    "elastic.inout": (k) => k === 0 ? 0 : k === 1 ? 1 : (k *= 2) < 1
      ? -0.5 * Math.pow(2, 10 * (k - 1)) * Math.sin((k - 1.1) * 5 * Math.PI)
      : 0.5 * Math.pow(2, -10 * (k - 1)) * Math.sin((k - 1.1) * 5 * Math.PI) + 1,
    "back.in": (k) => k === 1 ? 1 : k * k * ((s + 1) * k - s),
    "back.out": (k) => k === 0 ? 0 : --k * k * ((s + 1) * k + s) + 1,
    "back.inout": (k) => (k *= 2) < 1 ? 0.5 * (k * k * ((s2 + 1) * k - s2)) : 0.5 * ((k -= 2) * k * ((s2 + 1) * k + s2) + 2),
    "bounce.in": bounceIn,
    "bounce.out": bounceOut,
    "bounce.inout": (k) => k < 0.5 ? bounceIn(k * 2) * 0.5 : bounceOut(k * 2 - 1) * 0.5 + 0.5,
  };
})()`;

let table: Record<string, (k: number) => number> | undefined;

/** The easing `name` as a function here (the same source the page runs). */
export function easingFunction(name: Easing): (k: number) => number {
  // The source is this module's own constant, never request data.
  table ??= new Function(`return ${EASING_SOURCE};`)() as Record<string, (k: number) => number>;
  const fn = table[name];
  if (!fn) throw new Error(`unknown easing ${name}`);
  return fn;
}
