import { withTimeout } from "../../index.js";

/** What Chromium answers a capture when it had no frame of the page to copy. */
const NO_FRAME = "Unable to capture screenshot";

/** In the page (a `Runtime.evaluate` expression, awaited): resolves after its next animation frame. */
export const NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => done()))";

/** How long the retry waits for the page's next frame before it captures again anyway. */
const NEXT_FRAME_MS = 1_000;

/**
 * Runs `capture`. When Chromium had no frame of the page to copy (seen in CI on a first render on
 * a busy machine), waits for the page's next frame (`nextFrame`, at most `NEXT_FRAME_MS`) and
 * captures once more; any other error, or a second failure, is the caller's.
 */
export async function captureOrRetry<T>(capture: () => Promise<T>, nextFrame: () => Promise<unknown>): Promise<T> {
  try {
    return await capture();
  } catch (error) {
    if (!String(error).includes(NO_FRAME)) throw error;
    await withTimeout(nextFrame(), NEXT_FRAME_MS).catch(() => undefined);
    return capture();
  }
}
