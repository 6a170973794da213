import { RenderError } from "../errors.js";

/** Largest side of one capture in device pixels: Chromium's limit is 16,384; WebP's is 16,383. */
export const MAX_CAPTURE_PIXELS = 16_383;
/**
 * Height of one section of a capture taller than `MAX_CAPTURE_PIXELS`, in device pixels. Measured
 * on a 40,000 px text page (docs/page-preparation.md): 8,192 px sections are as fast as 16,383 px
 * ones (within 5% at dpr 1, slightly faster at dpr 2) and halve the browser's bitmap per capture;
 * 2,048 px sections are ~40% slower.
 */
export const SECTION_PIXELS = 8_192;
/**
 * Largest side of a `full_page_mode: native` capture in device pixels: Chromium's texture limit.
 * Beyond it a single beyond-viewport capture repeats or drops content, so the area is cut there.
 */
export const NATIVE_MAX_PIXELS = 16_384;
/** Largest capture in device pixels (width × height): sharp's default input limit, 0x3FFF². */
export const MAX_TOTAL_PIXELS = 0x3fff * 0x3fff;
/**
 * Most device pixels one screenshot may hold: a section of `SECTION_PIXELS` as wide as that
 * (8,192 × 8,192). Chromium's time for a screenshot grows with its area, and the screenshot must
 * finish within the render's `timeout` (default 30 s): on a 2-core machine with both cores busy, a
 * 16,000 × 16,000 viewport took 29 s and 8,000 × 8,000 7 s. Wider areas come in lower sections; a
 * viewport, which is one screenshot, is refused beyond it (`checkViewportPixels`).
 */
export const MAX_SHOT_PIXELS = SECTION_PIXELS * SECTION_PIXELS;

/** What the caller can take, and when to stop. */
export interface CaptureLimits {
  /** Largest output height in device pixels (an encoder's limit when the capture is not resized). */
  maxPixelHeight?: number;
  /** Checked before each section: an aborted render captures no further section. */
  signal?: AbortSignal;
  /**
   * Encode for speed, not size (`ScreenshotSettings.optimizeForSpeed`): for a caller that decodes
   * the capture anyway, or a request that asked. Sections to be stitched are always encoded so.
   */
  optimizeForSpeed?: boolean;
}

/**
 * Height of a section in CSS pixels: at most `pixels` device pixels (`SECTION_PIXELS`, or the
 * request's `max_section_height`) and, when possible, a whole number of device pixels, so that
 * sections meet without a rounding seam at any scale factor.
 */
export function sectionHeight(dpr: number, pixels: number = SECTION_PIXELS): number {
  const most = Math.max(1, Math.floor(pixels / dpr));
  for (let h = most; h > most - 64 && h > 0; h--) {
    if (Math.abs(h * dpr - Math.round(h * dpr)) < 1e-6) return h;
  }
  return most;
}

/**
 * Refuses, when the request is parsed, a viewport capture larger than one screenshot may be
 * (`MAX_SHOT_PIXELS`): `width` × `height` at `device_scale_factor`, in device pixels. A viewport is
 * captured without `full_page` and `clip` (and when a `selector` matches nothing).
 */
export function checkViewportPixels(options: {
  width: number;
  height: number;
  deviceScaleFactor: number;
  fullPage?: boolean;
  clip?: string;
}): void {
  if (options.fullPage || options.clip !== undefined) return;
  const dpr = options.deviceScaleFactor;
  const width = Math.ceil(options.width * dpr);
  const height = Math.ceil(options.height * dpr);
  if (width * height <= MAX_SHOT_PIXELS) return;
  const count = (n: number) => n.toLocaleString("en-US");
  throw new RenderError(
    "InvalidOptions",
    `Option device_scale_factor ${dpr} makes the ${options.width}×${options.height} viewport a ${width}×${height} px capture (${count(width * height)} px); one capture holds at most ${count(MAX_SHOT_PIXELS)} px: lower device_scale_factor, width or height`,
    { details: { option: "device_scale_factor" } },
  );
}

/**
 * Cuts an area (CSS pixels) to what one render may capture: width to one capture, height to
 * `maxHeight`, to the total pixel cap, and to `limits.maxPixelHeight`. Returns the kept height and width.
 */
export function captureBounds(
  area: { width: number; height: number },
  dpr: number,
  maxHeight: number,
  limits: CaptureLimits = {},
): { width: number; height: number; truncated: boolean } {
  const width = Math.min(area.width, Math.floor(MAX_CAPTURE_PIXELS / dpr));
  const devWidth = Math.max(1, Math.ceil(width * dpr));
  const byPixels = Math.floor(MAX_TOTAL_PIXELS / devWidth / dpr);
  const byCaller = limits.maxPixelHeight === undefined ? Number.POSITIVE_INFINITY : Math.floor(limits.maxPixelHeight / dpr);
  const height = Math.max(1, Math.min(area.height, maxHeight, byPixels, byCaller));
  return { width, height, truncated: width < area.width || height < area.height };
}

/**
 * `full_page_mode: native` is one screenshot: at most `NATIVE_MAX_PIXELS` tall and, for an area as
 * wide as one capture allows, `MAX_SHOT_PIXELS` in all.
 */
export function nativeLimits(area: { width: number }, dpr: number, limits: CaptureLimits): CaptureLimits {
  const devWidth = Math.max(1, Math.ceil(Math.min(area.width, Math.floor(MAX_CAPTURE_PIXELS / dpr)) * dpr));
  const most = Math.min(NATIVE_MAX_PIXELS, Math.floor(MAX_SHOT_PIXELS / devWidth));
  return { ...limits, maxPixelHeight: Math.min(limits.maxPixelHeight ?? most, most) };
}
