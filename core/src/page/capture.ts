import type { Box } from "../contracts/capture-settings.js";
import type { PageSession } from "../contracts/page-session.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { abortReason } from "../util/timeout.js";
import { forOption } from "./option-errors.js";
import { parseClip } from "./shape-values.js";

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

/** One screenshot of a capture, in order from the top. */
export interface CaptureSection {
  /** Encoded image (`Capture.type`). */
  bytes: Uint8Array;
  /** Offset from the top of the capture in CSS pixels. */
  top: number;
  /** Height in CSS pixels. */
  height: number;
}

/**
 * A screenshot, in one section or, when taller than one capture allows, several sections of the
 * same width to be stacked in order (format-image stitches them).
 */
export interface Capture {
  /** Encoding of every section: the type asked for, except png when there is more than one section. */
  type: "png" | "jpeg";
  sections: CaptureSection[];
  /**
   * Size of the captured area in CSS pixels (the sum of the sections' heights). A viewport capture
   * narrowed by `max_width` has sections wider than `width`: the formatter cuts them on the right.
   */
  width: number;
  height: number;
  /** Device pixels per CSS pixel. */
  deviceScaleFactor: number;
  /** Where the area lies in the document (CSS pixels); absent for a viewport capture. */
  area?: Box;
  /** True when the page (or element) was cut: at `max_height`, the pixel cap or the caller's height limit. */
  truncated: boolean;
  /** True when sections may be encoded for speed (`optimizeForSpeed`): more bytes for the same pixels. */
  optimizedForSpeed: boolean;
}

/**
 * What `captureScreenshot` reads: the core's page options, and the capture options of the format
 * that asks (the image formats declare `quality`, `transparent`, `clip`...; absent ones are off).
 */
export type CaptureOptions = Pick<
  RenderOptions,
  "deviceScaleFactor" | "selector" | "failIfSelectorMissing" | "fullPage" | "width" | "height" | "maxHeight"
> & {
  quality?: number;
  transparent?: boolean;
  bgColor?: string;
  fullPageMode?: "stitch" | "native";
  clip?: string;
  fullWidth?: boolean;
  maxWidth?: number;
  maxSectionHeight?: number;
};

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
 * Captures `area` (document coordinates): one clip screenshot when it fits `MAX_CAPTURE_PIXELS`
 * (or the request's `max_section_height`, in device pixels) and `MAX_SHOT_PIXELS`, otherwise PNG sections of
 * `sectionHeight(dpr, ...)` CSS pixels (clip screenshots beyond the viewport:
 * Chromium lays out the whole document for each, so `position: fixed` elements appear once, where
 * they are at the current scroll position, not in every section).
 */
async function captureArea(
  session: PageSession,
  area: Box,
  dpr: number,
  base: { type: "png" | "jpeg"; quality?: number; omitBackground: boolean; optimizeForSpeed: boolean },
  signal: AbortSignal | undefined,
  native = false,
  sectionPixels?: number,
): Promise<Pick<Capture, "type" | "sections" | "optimizedForSpeed">> {
  // No screenshot beyond `MAX_SHOT_PIXELS`: a wide area comes in lower sections.
  const devWidth = Math.max(1, Math.ceil(area.width * dpr));
  const most = Math.max(1, Math.floor(MAX_SHOT_PIXELS / devWidth));
  const oneShot = Math.min(sectionPixels ?? MAX_CAPTURE_PIXELS, most);
  if (native || area.height * dpr <= oneShot) {
    const bytes = await session.screenshot({ ...base, fullPage: true, clip: area });
    return { type: base.type, sections: [{ bytes, top: 0, height: area.height }], optimizedForSpeed: base.optimizeForSpeed };
  }
  // Stitched by sharp: PNG sections, so a JPEG is encoded once, from lossless pixels; sharp decodes
  // them, so they are encoded for speed.
  const png = { ...base, type: "png" as const, quality: undefined, optimizeForSpeed: true };
  const step = sectionHeight(dpr, Math.min(sectionPixels ?? SECTION_PIXELS, most));
  const sections: CaptureSection[] = [];
  for (let top = 0; top < area.height; top += step) {
    if (signal?.aborted) throw abortReason(signal);
    const height = Math.min(step, area.height - top);
    const bytes = await session.screenshot({ ...png, fullPage: true, clip: { ...area, y: area.y + top, height } });
    sections.push({ bytes, top, height });
  }
  return { type: "png", sections, optimizedForSpeed: true };
}

/**
 * Screenshot of what the request asks for: the `clip` rectangle, the element of `selector` (falling
 * back to the viewport unless `fail_if_selector_missing`), the full page (its scroll width with
 * `full_width`), or the viewport; at most `max_width` CSS px wide. `full_page_mode: native` takes
 * an area in one capture cut at `NATIVE_MAX_PIXELS`; `stitch` (default) in sections. Full pages and
 * elements are cut at `max_height` CSS pixels and at `MAX_TOTAL_PIXELS`; larger than one screenshot
 * may be, they come in sections (`captureArea`). A full page taller than what is kept has its
 * timers stopped first (`stopTimers`): the document is measured once, and an endlessly growing
 * one is captured as it was then, cut and `truncated`. A viewport beyond `MAX_SHOT_PIXELS` is refused. `limits` lets a format that would cut the image anyway
 * (an encoder's size limit) skip capturing what it would throw away.
 */
export async function captureScreenshot(
  session: PageSession,
  options: CaptureOptions,
  type: "png" | "jpeg",
  limits: CaptureLimits = {},
): Promise<Capture> {
  const base = {
    type,
    quality: type === "jpeg" ? options.quality : undefined,
    // `bg_color` is painted by the formatter behind the transparent capture.
    omitBackground: (options.transparent || options.bgColor !== undefined) && type === "png",
    optimizeForSpeed: limits.optimizeForSpeed === true && type === "png",
  };
  const dpr = options.deviceScaleFactor;
  const native = options.fullPageMode === "native";
  const clip = options.clip === undefined ? undefined : parseClip(options.clip);
  let whole: Box | undefined;
  /** True when `whole` is the document (`full_page`), measured once here. */
  let page = false;
  if (clip) whole = await clipInPage(session, clip);
  else if (options.selector) {
    const box = await forOption("selector", session.elementBox(options.selector));
    if (box && box.width > 0 && box.height > 0) whole = box;
    else if (options.failIfSelectorMissing) {
      throw new RenderError("EngineResponseNotOkError", `selector: nothing visible matches "${options.selector}"`);
    }
  }
  if (!whole && options.fullPage) {
    const size = await session.documentSize();
    const width = options.fullWidth ? Math.max(options.width, size.width) : options.width;
    whole = { x: 0, y: 0, width, height: Math.max(1, size.height) };
    page = true;
  }
  if (!whole) {
    // One screenshot, refused beyond `MAX_SHOT_PIXELS` (checked at parse time too; here also when a selector matched nothing).
    checkViewportPixels({ ...options, fullPage: false, clip: undefined });
    const bytes = await session.screenshot({ ...base, fullPage: false });
    const sections = [{ bytes, top: 0, height: options.height }];
    // `max_width` on a viewport capture: the formatter cuts the image to `width`.
    const width = Math.min(options.width, options.maxWidth ?? options.width);
    return {
      type,
      sections,
      width,
      height: options.height,
      deviceScaleFactor: dpr,
      truncated: false,
      optimizedForSpeed: base.optimizeForSpeed,
    };
  }
  // `max_width` is asked for, so cutting to it is not `truncated`.
  if (options.maxWidth !== undefined) whole = { ...whole, width: Math.min(whole.width, options.maxWidth) };
  const kept = captureBounds(whole, dpr, options.maxHeight, native ? nativeLimits(whole, dpr, limits) : limits);
  const area = { ...whole, width: kept.width, height: kept.height };
  // A page taller than what is kept may be one that grows without end: it is stopped first.
  if (page && kept.height < whole.height) await stopTimers(session);
  const captured = await captureArea(session, area, dpr, base, limits.signal, native, options.maxSectionHeight);
  return { ...captured, width: area.width, height: area.height, deviceScaleFactor: dpr, area, truncated: kept.truncated };
}

/**
 * `full_page_mode: native` is one screenshot: at most `NATIVE_MAX_PIXELS` tall and, for an area as
 * wide as one capture allows, `MAX_SHOT_PIXELS` in all.
 */
function nativeLimits(area: { width: number }, dpr: number, limits: CaptureLimits): CaptureLimits {
  const devWidth = Math.max(1, Math.ceil(Math.min(area.width, Math.floor(MAX_CAPTURE_PIXELS / dpr)) * dpr));
  const most = Math.min(NATIVE_MAX_PIXELS, Math.floor(MAX_SHOT_PIXELS / devWidth));
  return { ...limits, maxPixelHeight: Math.min(limits.maxPixelHeight ?? most, most) };
}

/**
 * Cancels the page's pending timers and animation-frame callbacks, once, without replacing its
 * functions (`nextFrames` still works after it). A page that keeps adding content from a timer or
 * a frame callback (an endless feed) then stops growing and leaves the browser free: Chromium lays
 * a beyond-viewport screenshot out at the document's full height, so each section of a page that
 * grew to millions of px took seconds, and under load passed the 30 s screenshot timeout (500).
 * Timer ids count up per page: the newest million and the first 10,000 are cleared.
 */
async function stopTimers(session: PageSession): Promise<void> {
  const source = `() => {
    const stop = (last, cancel) => {
      for (let id = last; id > 0 && last - id < 1e6; id--) cancel(id);
      for (let id = 1; id < Math.min(last - 1e6, 1e4); id++) cancel(id);
    };
    stop(setTimeout(() => {}, 0), clearTimeout);
    stop(requestAnimationFrame(() => {}), cancelAnimationFrame);
  }`;
  await session.evaluate(source).catch(() => undefined);
}

/** `clip` checked against the page: a rectangle reaching beyond the document is the caller's error (400). */
async function clipInPage(session: PageSession, clip: Box): Promise<Box> {
  const size = await session.documentSize();
  if (clip.x + clip.width > size.width || clip.y + clip.height > size.height) {
    throw new RenderError(
      "InvalidOptions",
      `Option clip (${clip.x},${clip.y},${clip.width},${clip.height}) reaches beyond the page, which is ${size.width}×${size.height} CSS px`,
      { details: { option: "clip" } },
    );
  }
  return clip;
}
