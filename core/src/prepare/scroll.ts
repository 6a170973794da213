import type { PageSession } from "../contracts/page-session.js";
import { abortReason, raceSignal, sleep, withTimeout } from "../util/timeout.js";

export interface PreScrollSettings {
  /** CSS pixels per step. */
  increment: number;
  /** Milliseconds to wait after each step. */
  delay: number;
  /** Stop once this far down (CSS pixels); infinite pages keep growing. */
  maxHeight: number;
  /** Budget for scrolling and waiting for images, in ms. */
  budgetMs: number;
  /**
   * Whether the page's timers and animation frames run. With `disable_js` they do not: nothing
   * in the page may wait on them, so the waits happen here and images are polled, not awaited.
   */
  pageTimers: boolean;
  /** Whether to wait for the images after scrolling (`skip_wait_for_images` turns it off). */
  waitForImages?: boolean;
}

/** What a pre-scroll did (logged at debug level as "pre-scroll"). */
export interface PreScrollReport {
  /** Scroll steps that completed. */
  steps: number;
  /** Deepest point the viewport's bottom reached, in CSS pixels. */
  reached: number;
}

/** Longest the image wait after scrolling takes, in ms (within what is left of the budget). */
export const IMAGE_WAIT_MS = 10_000;
/** Part of the budget the scrolling leaves for the image wait and the return to the top, in ms. */
const RESERVE_MS = 1_000;
/** Bound of the steps that only run a script and wait for frames (the return to the top), in ms. */
const QUICK_MS = 2_000;

/** Where one step left the page, in CSS pixels of the scrolled element. */
interface StepResult {
  top: number;
  /** Scroll height of the scrolled element (grows on infinite pages). */
  height: number;
  /** Visible height of the scrolled element. */
  view: number;
}

/**
 * In-page helpers shared by the scripts below. `scroller()`: the element that scrolls the content,
 * the document's scrolling element, or, when the document does not scroll (a page that sets
 * `overflow: hidden` on body and scrolls an inner element), the largest element that scrolls
 * vertically and covers at least half of the viewport. `frames()`: two animation frames, so
 * IntersectionObserver callbacks of the new position have run (bounded: rAF may never fire).
 * `scrollTo` uses `behavior: "instant"` so `scroll-behavior: smooth` does not defer the move.
 */
const HELPERS = `
  const root = document.scrollingElement || document.documentElement;
  const viewHeight = () => window.innerHeight || root.clientHeight;
  const scroller = () => {
    if (root.scrollHeight > viewHeight() + 1) return root;
    let best = root;
    let bestArea = 0;
    const all = document.body ? document.body.getElementsByTagName("*") : [];
    for (let i = 0; i < all.length && i < 5000; i++) {
      const el = all[i];
      if (el.scrollHeight <= el.clientHeight + 1 || el.clientHeight < viewHeight() / 2) continue;
      const overflow = getComputedStyle(el).overflowY;
      if (overflow === "visible" || overflow === "clip") continue;
      const area = el.clientWidth * el.clientHeight;
      if (area > bestArea) { best = el; bestArea = area; }
    }
    return best;
  };
  const moveTo = (el, top) => {
    if (el === root) window.scrollTo({ top, left: 0, behavior: "instant" });
    else el.scrollTo({ top, left: el.scrollLeft, behavior: "instant" });
  };
  const frames = () => new Promise((resolve) => {
    const timer = setTimeout(resolve, 250);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  });
`;

/** Pause standing in for two animation frames when the page's own cannot be awaited, in ms. */
const FRAMES_MS = 50;

/** One step: scrolls `increment` further down, waits two frames (if `wait`), reports where it is. */
const STEP_SOURCE = `async ({ increment, wait }) => {
  ${HELPERS}
  const el = scroller();
  const from = el === root ? Math.max(window.scrollY, root.scrollTop) : el.scrollTop;
  moveTo(el, from + increment);
  if (wait) await frames();
  const top = el === root ? Math.max(window.scrollY, root.scrollTop) : el.scrollTop;
  return { top, height: el.scrollHeight, view: el === root ? viewHeight() : el.clientHeight };
}`;

/**
 * Waits until the images in the first `limit` CSS pixels of the document are loaded and decoded,
 * or `timeoutMs` passed. Only images with a box inside the viewport's width are waited for: a lazy
 * image that never entered the viewport (hidden, in an off-screen carousel) never loads, and
 * waiting for it would always cost the whole timeout. Decoding failures are ignored. Background
 * images of the same elements are decoded through an `Image` (served from the cache). Runs after
 * the return to the top, so boxes are in document coordinates; two frames paint what decoded.
 */
const IMAGES_SOURCE = `async ({ limit, timeoutMs }) => {
  ${HELPERS}
  const waits = [];
  const width = window.innerWidth || document.documentElement.clientWidth;
  const inRange = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const top = r.top + window.scrollY;
    return top < limit && r.right > 0 && r.left < width;
  };
  for (const img of Array.from(document.images)) {
    if (!inRange(img)) continue;
    if (img.complete && img.naturalWidth === 0) continue;
    waits.push(img.decode().catch(() => undefined));
  }
  const urls = new Set();
  const all = document.body ? document.body.getElementsByTagName("*") : [];
  for (let i = 0; i < all.length && i < 5000 && urls.size < 200; i++) {
    const background = getComputedStyle(all[i]).backgroundImage;
    if (!background || background === "none" || !background.includes("url(")) continue;
    if (!inRange(all[i])) continue;
    for (const match of background.matchAll(/url\\(\\s*["']?([^"')]+)["']?\\s*\\)/g)) urls.add(match[1]);
  }
  for (const url of urls) {
    if (!/^(https?:|data:|blob:)/.test(url)) continue;
    const image = new Image();
    image.src = url;
    waits.push(image.decode().catch(() => undefined));
  }
  let timer;
  const deadline = new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs); });
  await Promise.race([Promise.all(waits), deadline]);
  clearTimeout(timer);
  await frames();
  return waits.length;
}`;

/**
 * Without page timers: how many images in the first `limit` CSS pixels (and inside the viewport's
 * width) are still loading. Polled from here, since nothing in the page can wait.
 */
const PENDING_IMAGES_SOURCE = `({ limit }) => {
  const width = window.innerWidth || document.documentElement.clientWidth;
  let pending = 0;
  for (const img of Array.from(document.images)) {
    const r = img.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.left >= width) continue;
    if (r.top + window.scrollY < limit && !img.complete) pending++;
  }
  return pending;
}`;

/** Back to the top of the document and of the inner scroller, then two frames (if `wait`). */
const TOP_SOURCE = `async (wait) => {
  ${HELPERS}
  const el = scroller();
  if (el !== root) moveTo(el, 0);
  moveTo(root, 0);
  if (wait) await frames();
}`;

/** Runs one in-page step within `ms`, following the signal; undefined when it failed or took too long. */
async function run<T>(
  session: PageSession,
  source: string,
  arg: unknown,
  ms: number,
  signal: AbortSignal,
): Promise<T | undefined> {
  try {
    return await raceSignal(withTimeout(session.evaluate<T>(source, arg), Math.max(1, ms)), signal);
  } catch {
    if (signal.aborted) throw abortReason(signal);
    // The pre-scroll is best effort: a page that navigates away or blocks its main thread is
    // captured as it is (a lost browser fails the capture that follows).
    return undefined;
  }
}

/**
 * Scrolls through the page so lazy images and IntersectionObserver content load, waits for
 * images to load and decode (bounded), and returns to the top.
 *
 * One `evaluate` per step: scroll `increment` down (window or the inner scroller), wait two
 * animation frames in the page, then `delay` ms here. It stops when a step no longer moves and the
 * scroll height did not grow (the bottom, re-read after every wait, so infinite pages keep going),
 * once the viewport's bottom reaches `maxHeight`, or when the budget (less a reserve for the
 * image wait) is spent. Then one `evaluate` returns to the top and one waits for the images down
 * to where the scrolling reached (at most `IMAGE_WAIT_MS`, within the rest of the budget).
 * Aborting the signal rejects at once.
 */
export async function preScroll(
  session: PageSession,
  settings: PreScrollSettings,
  signal: AbortSignal,
): Promise<PreScrollReport> {
  const started = Date.now();
  const left = () => settings.budgetMs - (Date.now() - started);
  const increment = Math.max(1, Math.floor(settings.increment));
  let last: StepResult | undefined;
  /** Deepest point the viewport's bottom reached (CSS pixels); images below it may never load. */
  let reached = 0;
  let steps = 0;
  // Bounded also by steps: maxHeight / increment, plus room for the checks at the bottom.
  const maxSteps = Math.ceil(settings.maxHeight / increment) + 2;
  for (let step = 0; step < maxSteps; step++) {
    if (signal.aborted) throw abortReason(signal);
    const remaining = left() - RESERVE_MS;
    if (remaining <= 0) break;
    const at = await run<StepResult>(session, STEP_SOURCE, { increment, wait: settings.pageTimers }, remaining, signal);
    if (!at) break;
    steps++;
    if (!settings.pageTimers) await sleep(Math.min(FRAMES_MS, Math.max(0, left())), signal);
    reached = Math.max(reached, at.top + at.view);
    if (at.top + at.view >= settings.maxHeight) break;
    // A page that does not scroll at all has nothing to load further down.
    if (!last && at.top === 0 && at.height <= at.view + 1) break;
    if (last && at.top <= last.top && at.height <= last.height) break;
    last = at;
    const pause = Math.min(settings.delay, left() - RESERVE_MS);
    if (pause > 0) await sleep(pause, signal);
  }
  await run(session, TOP_SOURCE, settings.pageTimers, QUICK_MS, signal);
  const report = { steps, reached };
  if (settings.waitForImages === false) return report;
  const imageWait = Math.min(IMAGE_WAIT_MS, left());
  if (imageWait <= 0) return report;
  const limit = Math.min(settings.maxHeight, reached || increment);
  if (settings.pageTimers) {
    await run(session, IMAGES_SOURCE, { limit, timeoutMs: imageWait }, imageWait + QUICK_MS, signal);
    return report;
  }
  const deadline = Date.now() + imageWait;
  while (Date.now() < deadline) {
    const pending = await run<number>(session, PENDING_IMAGES_SOURCE, { limit }, deadline - Date.now(), signal);
    if (!pending) break;
    await sleep(Math.min(100, Math.max(0, deadline - Date.now())), signal);
  }
  await sleep(FRAMES_MS, signal);
  return report;
}
