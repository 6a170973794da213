import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type FormatContext,
  type FormatOutput,
  type FormatSpec,
  type Formatter,
  type PageSession,
  RenderError,
} from "@renderkit/core";
import { ownedTempDir, PRESCROLL_BUDGET_MS, preScroll } from "@renderkit/core/page";
import { captureFrames } from "./capture.js";
import { ENCODERS, ffmpegArgs } from "./encoder-args.js";
import { FfmpegProcess } from "./ffmpeg-process.js";
import { findFfmpeg } from "./find-ffmpeg.js";
import { isVideoFormat, VIDEO_FORMATS, type VideoCodec } from "./formats.js";
import { FrameWriter } from "./frame-writer.js";
import { frameGeometry, locateElement } from "./geometry.js";
import { planVideo, VIDEO_OPTIONS, type VideoPlan, videoAspect } from "./options.js";
import { checkVideoRules } from "./rules.js";

/**
 * ffmpeg's "Unknown encoder" as a clear error. Checked after the fact instead of probing
 * `ffmpeg -encoders` before every first render: ffmpeg fails at once when the encoder is missing,
 * and a probe would delay the first video by a process start.
 */
function missingEncoder(error: unknown, codec: VideoCodec, path: string): unknown {
  const encoder = ENCODERS[codec];
  if (!(error instanceof RenderError) || !String(error.details?.stderr ?? "").includes(`Unknown encoder '${encoder}'`)) {
    return error;
  }
  return new RenderError(
    "EngineResponseNotOkError",
    `Cannot make ${codec} videos: ${path} has no ${encoder} encoder; install an ffmpeg built with it (Debian/Ubuntu: apt-get install ffmpeg) or set FFMPEG_PATH`,
    { cause: error },
  );
}

/**
 * Whether the formatter runs the lazy-load pre-scroll itself: the core runs it for `full_page`,
 * and `video_scroll` alone must behave the same (unless `skip_scroll`).
 */
function ownPreScroll(plan: VideoPlan, options: FormatContext["options"]): boolean {
  return plan.scroll && !options.fullPage && !options.skipScroll;
}

/**
 * After a tour: true when `max_height` stopped it above the page's end. A `video_scroll_distance`
 * that ends above `max_height` asked for the shorter tour: not a cut.
 */
async function tourCut(session: PageSession, plan: VideoPlan, viewportHeight: number): Promise<boolean> {
  const distance = plan.tour?.distance;
  if (distance !== undefined && distance + viewportHeight <= plan.scrollLimit) return false;
  const height = await session
    .evaluate<number>("() => (document.scrollingElement || document.documentElement).scrollHeight")
    .catch(() => 0);
  return height > plan.scrollLimit;
}

/** Settings fixed per renderer (`videoFormats(options)`). */
export interface VideoFormatterSettings {
  /** ffmpeg binary; default: `FFMPEG_PATH`, `ffmpeg-static`, `ffmpeg` on `PATH`. */
  ffmpegPath?: string;
  /** Time ffmpeg may take after the capture ends before it is killed, in ms. */
  encodeTimeoutMs: number;
  /** Distinct JPEG frames held while ffmpeg catches up, in bytes; beyond it frames are held, not queued. */
  maxBufferedBytes: number;
}

export const DEFAULT_VIDEO_SETTINGS: VideoFormatterSettings = {
  encodeTimeoutMs: 60_000,
  maxBufferedBytes: 64 * 1024 * 1024,
};

/**
 * mp4 (H.264) and webm (VP9, VP8) from Chromium's screencast: JPEG frames, resampled to a constant
 * frame rate by their paint timestamps, piped into ffmpeg while the capture runs, encoded to a
 * file in a private temporary directory (removed on every path). Result extras: `frames`,
 * `capturedFrames`, `frameRate`, `duration`, `codec`, `width`, `height`.
 */
export class VideoFormatter implements Formatter {
  readonly name = "@renderkit/format-video";
  readonly formats = VIDEO_FORMATS;
  readonly options = VIDEO_OPTIONS;
  constructor(private readonly settings: VideoFormatterSettings = DEFAULT_VIDEO_SETTINGS) {}

  /**
   * Checks the video options for `format` (codec against container, size) and refuses the options
   * a video cannot honour (`VIDEO_RULES`); throws `InvalidOptions`.
   */
  validate(options: FormatContext["options"], format: FormatSpec): VideoPlan {
    if (!isVideoFormat(format.format)) throw new Error(`${this.name} cannot produce ${format.format}`);
    const plan = planVideo(options, format.format);
    checkVideoRules(options, format.format);
    return plan;
  }

  /**
   * Time a video render needs beyond loading the page: the capture and the encode's allowance. Not
   * read by the core yet (see the README's "Core hooks"); the attempt budget must cover it.
   */
  extraTimeMs(options: FormatContext["options"], format: FormatSpec): number {
    const plan = this.validate(options, format);
    const preScrollMs = ownPreScroll(plan, options) ? PRESCROLL_BUDGET_MS : 0;
    return Math.round(plan.duration * 1000) + this.settings.encodeTimeoutMs + preScrollMs;
  }

  /** Runs before the page opens: a bad option combination fails without loading anything. */
  pageSettings(options: FormatContext["options"], format: FormatSpec) {
    this.validate(options, format);
    return {};
  }

  /**
   * Prepares the page for the capture and settles the frame: the lazy-load pre-scroll for a
   * `video_scroll` tour (the core does it for `full_page`); for `selector`, the element scrolled
   * into view and its visible box as the crop (`truncated` when it is larger than the viewport;
   * the whole viewport when nothing visible matches, unless `fail_if_selector_missing`).
   */
  private async shape(
    session: PageSession,
    plan: VideoPlan,
    options: FormatContext["options"],
    signal: AbortSignal,
  ): Promise<{ plan: VideoPlan; truncated: boolean }> {
    if (ownPreScroll(plan, options)) {
      await preScroll(
        session,
        {
          increment: options.scrollIncrement ?? options.height,
          delay: options.scrollDelay,
          maxHeight: plan.scrollLimit,
          budgetMs: PRESCROLL_BUDGET_MS,
          pageTimers: plan.pageScripts,
        },
        signal,
      );
    }
    if (!options.selector) return { plan, truncated: false };
    const frame = { width: plan.captureWidth, height: plan.captureHeight };
    const found = await locateElement(session, options.selector, frame, options.deviceScaleFactor);
    if (!found) {
      if (options.failIfSelectorMissing) {
        throw new RenderError("EngineResponseNotOkError", `selector: nothing visible matches "${options.selector}"`);
      }
      return { plan, truncated: false };
    }
    const geometry = frameGeometry(
      frame,
      found.region,
      options.videoWidth as number | undefined,
      options.videoHeight as number | undefined,
      videoAspect(options),
    );
    return { plan: { ...plan, crop: geometry.crop, width: geometry.width, height: geometry.height }, truncated: found.truncated };
  }

  async render(session: PageSession, context: FormatContext): Promise<FormatOutput> {
    const entered = performance.now();
    const { signal, logger, options } = context;
    const { plan, truncated: cut } = await this.shape(session, this.validate(options, context.format), options, signal);
    const { path } = findFfmpeg(this.settings.ffmpegPath);
    const dir = await ownedTempDir("renderkit-video-");
    let ffmpeg: FfmpegProcess | undefined;
    try {
      const output = join(dir, `video.${context.format.extension}`);
      const started = performance.now();
      ffmpeg = new FfmpegProcess(path, ffmpegArgs(plan, output), {
        signal,
        timeoutMs: plan.duration * 1000 + this.settings.encodeTimeoutMs,
      });
      const writer = new FrameWriter(ffmpeg, this.settings.maxBufferedBytes);
      const stats = await captureFrames(
        session,
        plan,
        (data, count) => writer.enqueue(data, count),
        signal,
        () => (writer.error === undefined ? undefined : missingEncoder(writer.error, plan.codec, path)),
        logger,
      );
      const captured = performance.now();
      await writer.flush();
      await ffmpeg.finish().catch((error: unknown) => {
        throw missingEncoder(error, plan.codec, path);
      });
      const body = await readFile(output);
      const truncated = cut || (plan.scroll && (await tourCut(session, plan, options.height)));
      logger.debug("video encoded", {
        renderId: context.renderId,
        codec: plan.codec,
        startMs: Math.round(stats.startedAt - entered),
        captureMs: Math.round(captured - started),
        encodeTailMs: Math.round(performance.now() - captured),
        received: stats.received,
        distinct: stats.distinct,
        dropped: stats.dropped,
        screenshotStart: stats.screenshotStart,
        stalledShots: stats.stalledShots,
        bytes: body.length,
      });
      return {
        body,
        extras: {
          frames: stats.frames,
          capturedFrames: stats.distinct,
          frameRate: Math.round((stats.distinct / plan.duration) * 100) / 100,
          duration: plan.duration,
          codec: plan.codec,
          width: plan.width,
          height: plan.height,
          ...(truncated ? { truncated: true } : {}),
        },
      };
    } finally {
      await ffmpeg?.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
