import { abortReason, type Logger, type PageSession, RenderError, type Screencast, withTimeout } from "@renderkit/core";
import { sleep } from "@renderkit/core/internal";
import type { VideoPlan } from "./options.js";
import { type FrameEmitter, FrameResampler, type ResampleStats } from "./resampler.js";
import { TOUR_SCRIPT, TOUR_STEP_SCRIPT } from "./tour.js";

/** Screencast JPEG quality: frames are re-encoded by the video codec, so 85 is visually lossless here. */
export const FRAME_QUALITY = 85;

/** Timing of the capture loop, in milliseconds (exported for tests). */
export const CAPTURE_TIMING = {
  /** Wait this long for the screencast's first frame before taking a screenshot instead. */
  firstFrameMs: 200,
  /** Held frames are emitted this often while nothing paints, so the encoder keeps busy. */
  tickMs: 100,
  /** A frame arrives at most this long after its paint time (measured: under 30 ms warm). */
  lateMs: 150,
  /** Capture continues this long past the video's end for frames still on their way. */
  tailMs: 100,
  /**
   * With \`video_scroll\`, a screencast silent this long gets a screenshot as its next frame: some
   * Chromium builds send no screencast frame for a script-driven scroll.
   */
  stallMs: 150,
  /** Longest wait for the page's next painted frame before the capture starts. */
  paintedMs: 1_000,
};

/**
 * Resolves after two animation frames: the page has produced a frame since it loaded. Without
 * it a light page can fire `load` before its first paint and the video would open on a blank frame.
 */
export const PAINTED_SCRIPT =
  "() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))";

/** Pause between two steps of a tour driven from here, in ms (about 30 steps a second). */
const SCROLL_STEP_MS = 33;

/** Drives the tour from here until the video's end or `done()`; a failed step ends it (best effort). */
async function driveScroll(session: PageSession, start: number, plan: VideoPlan, done: () => boolean, signal: AbortSignal) {
  const tour = plan.tour;
  if (!tour) return;
  while (!done() && !signal.aborted) {
    const ms = Math.min(plan.duration, now() - start) * 1000;
    try {
      await session.evaluate(TOUR_STEP_SCRIPT, { tour, ms });
    } catch {
      return;
    }
    if (ms >= plan.duration * 1000) return;
    await sleep(SCROLL_STEP_MS, signal).catch(() => undefined);
  }
}

/** Counts reported in the render result. */
export interface CaptureStats extends ResampleStats {
  /** Screenshots taken because the screencast went silent during a \`video_scroll\` tour. */
  stalledShots: number;
  /** True when the first frame came from a screenshot (the page painted nothing at first). */
  screenshotStart: boolean;
  /** When the video's first frame was taken (`performance.now()` clock). */
  startedAt: number;
}

const now = () => Date.now() / 1000;

/**
 * Captures `plan.frames` frames at `plan.fps` from the page's screencast and emits them to `emit`
 * as they become final (see `FrameResampler`). Frame times are the browser's paint timestamps
 * (seconds since the epoch, same clock as ours; a different clock is realigned on the first
 * frame). Chromium only sends a frame when something paints: when no frame comes within 200 ms,
 * a screenshot starts the video and is held until the page paints. Stops the screencast on every
 * path; `failed()` is polled so a dead encoder ends the capture early.
 */
export async function captureFrames(
  session: PageSession,
  plan: VideoPlan,
  emit: FrameEmitter,
  signal: AbortSignal,
  failed: () => unknown = () => undefined,
  logger?: Logger,
): Promise<CaptureStats> {
  if (!session.screencast) throw new RenderError("EngineResponseNotOkError", "This engine cannot stream frames (screencast)");
  const resampler = new FrameResampler(plan.fps, plan.frames, emit);
  // Without page scripts no animation frame callback runs; the first-frame fallback covers it.
  if (plan.pageScripts) await withTimeout(session.evaluate(PAINTED_SCRIPT), CAPTURE_TIMING.paintedMs).catch(() => undefined);
  if (signal.aborted) throw abortReason(signal);
  const startedAt = now();
  let offset: number | undefined;
  let videoStart: number | undefined;
  let stopped = false;
  let lastArrival = 0;
  let firstFrame: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    firstFrame = resolve;
  });
  const cast: Screencast = await session.screencast(
    { format: "jpeg", quality: FRAME_QUALITY, maxWidth: plan.captureWidth, maxHeight: plan.captureHeight },
    (frame) => {
      if (stopped) return;
      const arrival = now();
      lastArrival = arrival;
      // Same clock within a second or two; otherwise (another engine's clock) align on arrival.
      offset ??= Math.abs(arrival - frame.timestamp) < 2 ? 0 : arrival - frame.timestamp;
      resampler.push(frame.data, Math.max(startedAt, frame.timestamp + offset));
      videoStart ??= performance.now();
      firstFrame();
    },
  );
  let screenshotStart = false;
  let stalledShots = 0;
  let tour: Promise<void> | undefined;
  try {
    await Promise.race([first, sleep(CAPTURE_TIMING.firstFrameMs, signal)]);
    if (!resampler.started) {
      const at = now();
      const shot = Buffer.from(
        await session.screenshot({ type: "jpeg", quality: FRAME_QUALITY, fullPage: false, omitBackground: false }),
      );
      if (!resampler.started) {
        resampler.push(shot, at);
        videoStart = performance.now() - (now() - at) * 1000;
        screenshotStart = true;
      }
    }
    const end = resampler.endTime as number;
    if (plan.tour) {
      const videoStartsAt = end - plan.frames / plan.fps;
      const elapsedMs = Math.max(0, (now() - videoStartsAt) * 1000);
      if (plan.pageScripts) await session.evaluate(TOUR_SCRIPT, { tour: plan.tour, elapsedMs });
      else tour = driveScroll(session, videoStartsAt, plan, () => stopped, signal);
    }
    for (;;) {
      const error = failed();
      if (error !== undefined) throw error;
      const remaining = end + CAPTURE_TIMING.tailMs / 1000 - now();
      if (remaining <= 0) break;
      if (plan.scroll && now() - lastArrival > CAPTURE_TIMING.stallMs / 1000) {
        const at = now();
        const shot = Buffer.from(
          await session.screenshot({ type: "jpeg", quality: FRAME_QUALITY, fullPage: false, omitBackground: false }),
        );
        // A screencast frame that came meanwhile is newer; the screenshot is then dropped. The
        // picture was taken somewhere during the call: stamped at its middle, so a slow screenshot
        // of a moving tour is neither early nor late by more than half its time.
        if (lastArrival < at) {
          resampler.push(shot, (at + now()) / 2);
          lastArrival = at;
        }
        stalledShots++;
        continue;
      }
      await sleep(Math.min(CAPTURE_TIMING.tickMs, remaining * 1000), signal);
      resampler.advance(now() - CAPTURE_TIMING.lateMs / 1000);
    }
  } finally {
    stopped = true;
    await tour;
    await cast.stop().catch((error: unknown) => logger?.warn("stopping the screencast failed", { error: String(error) }));
  }
  if (signal.aborted) throw abortReason(signal);
  resampler.finish();
  return { ...resampler.stats, screenshotStart, stalledShots, startedAt: videoStart ?? performance.now() };
}
