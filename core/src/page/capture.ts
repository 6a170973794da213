import type { Box } from "../contracts/capture-settings.js";
import type { PageSession } from "../contracts/page-session.js";
import type { RenderOptions } from "../contracts/render-options.js";
import { RenderError } from "../errors.js";
import { abortReason } from "../util/timeout.js";
import {
  type CaptureLimits,
  captureBounds,
  checkViewportPixels,
  MAX_CAPTURE_PIXELS,
  MAX_SHOT_PIXELS,
  nativeLimits,
  SECTION_PIXELS,
  sectionHeight,
} from "./capture-limits.js";
import { forOption } from "./option-errors.js";
import { parseClip } from "./shape-values.js";

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
