import { type Box, type PageSession, RenderError } from "@renderkit/core";
import { forOption } from "@renderkit/core/page";

/** Largest output, in pixels per frame (3840×2160). Above it the encoders fall far behind the capture. */
export const MAX_VIDEO_PIXELS = 3840 * 2160;

/** Largest side of a video in pixels (`video_width`, `video_height` and derived sizes). */
export const MAX_VIDEO_SIDE = 3840;

/** Where the output frames come from and how big they are. */
export interface FrameGeometry {
  /** Part of each captured frame that is kept, in device pixels; absent: the whole frame. */
  crop?: Box;
  /** Output size in pixels (even numbers, for yuv420p). */
  width: number;
  height: number;
}

const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);
/** A side derived from the aspect ratio: the nearest even number. */
const nearEven = (n: number) => Math.max(2, Math.round(n / 2) * 2);

function invalid(option: string, message: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${message}`, { details: { option } });
}

/** Narrowest and widest `video_aspect` (width / height): 1:16 to 16:1. */
export const ASPECT_RANGE = [1 / 16, 16] as const;

/** `16:9`, `16/9` or `1.7778` as width / height; undefined when malformed or out of range. */
export function parseAspect(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:[:/]\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
  if (!match) return undefined;
  const aspect = Number(match[1]) / (match[2] === undefined ? 1 : Number(match[2]));
  if (!Number.isFinite(aspect) || aspect < ASPECT_RANGE[0] - 1e-9 || aspect > ASPECT_RANGE[1] + 1e-9) return undefined;
  return aspect;
}

/**
 * True when a `video_width` × `video_height` video has the aspect ratio `aspect`, to the even
 * pixel: the side derived from the other (as with one size given) is within 2 pixels.
 */
export function aspectAgrees(videoWidth: number, videoHeight: number, aspect: number): boolean {
  const width = even(videoWidth);
  const height = even(videoHeight);
  return Math.abs(nearEven(width / aspect) - height) <= 2 || Math.abs(nearEven(height * aspect) - width) <= 2;
}

/** The largest part of `src` with the aspect ratio `aspect` (width / height), around its centre. */
function cutTo(src: Box, aspect: number): Box {
  if (src.width / src.height > aspect) {
    const w = Math.max(1, Math.round(src.height * aspect));
    return { x: src.x + Math.floor((src.width - w) / 2), y: src.y, width: w, height: src.height };
  }
  const h = Math.max(1, Math.round(src.width / aspect));
  return { x: src.x, y: src.y + Math.floor((src.height - h) / 2), width: src.width, height: h };
}

/**
 * The crop and output size of a video. `frame` is the captured frame (device pixels), `region`
 * the part to record (an element's visible box, device pixels) or undefined for the whole frame.
 * Without `video_width`/`video_height` the output is the region at its own size, rounded down to
 * even numbers (cropped, never scaled), and needs no check: the frame's size is checked apart. With one of them, the region is scaled to it and the other
 * side follows the aspect ratio (the nearest even number). With both, the output is exactly that size: the region is cut
 * to that aspect ratio around its centre, then scaled. `aspect` (`video_aspect`, width / height)
 * with one size gives the other (then as both); alone, the region is cut to it around its centre and
 * kept at its own scale; with both sizes it was checked against them (`VIDEO_RULES`). Throws
 * `InvalidOptions` when the result is larger than a video allows.
 */
export function frameGeometry(
  frame: { width: number; height: number },
  region: Box | undefined,
  videoWidth?: number,
  videoHeight?: number,
  aspect?: number,
): FrameGeometry {
  const src = region ?? { x: 0, y: 0, width: frame.width, height: frame.height };
  if (aspect !== undefined) {
    if (videoWidth !== undefined && videoHeight === undefined) videoHeight = nearEven(even(videoWidth) / aspect);
    else if (videoHeight !== undefined && videoWidth === undefined) videoWidth = nearEven(even(videoHeight) * aspect);
    else if (videoWidth === undefined && videoHeight === undefined) {
      const w = Math.min(src.width, src.height * aspect);
      const h = Math.min(src.height, src.width / aspect);
      videoWidth = even(w);
      videoHeight = even(h);
      const crop = cutTo(src, videoWidth / videoHeight);
      const whole = crop.x === 0 && crop.y === 0 && crop.width === frame.width && crop.height === frame.height;
      return whole ? { width: videoWidth, height: videoHeight } : { crop, width: videoWidth, height: videoHeight };
    }
  }
  let crop: Box = src;
  let width: number;
  let height: number;
  if (videoWidth !== undefined && videoHeight !== undefined) {
    width = even(videoWidth);
    height = even(videoHeight);
    crop = cutTo(src, width / height);
  } else if (videoWidth !== undefined) {
    width = even(videoWidth);
    height = nearEven((src.height * width) / src.width);
  } else if (videoHeight !== undefined) {
    height = even(videoHeight);
    width = nearEven((src.width * height) / src.height);
  } else {
    width = even(src.width);
    height = even(src.height);
    // A region is kept at its own size: cut to the even size instead of scaled by a pixel.
    if (region) crop = { ...src, width: Math.min(src.width, width), height: Math.min(src.height, height) };
  }
  // Without a requested size the output is at most the captured frame, whose size is checked apart.
  const option = videoWidth !== undefined ? "video_width" : "video_height";
  const sized = videoWidth !== undefined || videoHeight !== undefined;
  if (sized && (width > MAX_VIDEO_SIDE || height > MAX_VIDEO_SIDE || width * height > MAX_VIDEO_PIXELS)) {
    throw invalid(
      option,
      `makes a ${width}×${height} video; videos allow at most ${MAX_VIDEO_SIDE} pixels a side and ${MAX_VIDEO_PIXELS} (3840×2160) a frame`,
    );
  }
  const whole = crop.x === 0 && crop.y === 0 && crop.width === frame.width && crop.height === frame.height;
  return whole ? { width, height } : { crop, width, height };
}

/** What `locateElement` found: the element's box in the viewport and the viewport's size (CSS pixels). */
export interface ElementView {
  rect: Box;
  viewport: { width: number; height: number };
}

/**
 * In the page: scrolls the first match of `selector` into view (centred when it fits, its top-left
 * corner at the viewport's otherwise) and returns its box in the viewport. Runs without page
 * scripts too (`disable_js`): evaluation is DevTools', not the page's.
 */
export const LOCATE_SCRIPT = `(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const before = el.getBoundingClientRect();
  el.scrollIntoView({
    behavior: "instant",
    block: before.height > window.innerHeight ? "start" : "center",
    inline: before.width > window.innerWidth ? "start" : "center",
  });
  const r = el.getBoundingClientRect();
  return { rect: { x: r.left, y: r.top, width: r.width, height: r.height }, viewport: { width: window.innerWidth, height: window.innerHeight } };
}`;

/**
 * Finds the element of `selector` (a bad selector is `InvalidOptions`), scrolls it into view and
 * returns the part of it that is visible, in device pixels of the captured frame, with whether it
 * was cut (larger than the viewport). Undefined when nothing visible matches.
 */
export async function locateElement(
  session: PageSession,
  selector: string,
  frame: { width: number; height: number },
  dpr: number,
): Promise<{ region: Box; truncated: boolean } | undefined> {
  const box = await forOption("selector", session.elementBox(selector));
  if (!box || box.width <= 0 || box.height <= 0) return undefined;
  const view = await session.evaluate<ElementView | null>(LOCATE_SCRIPT, selector);
  if (!view) return undefined;
  const { rect } = view;
  const left = Math.max(0, Math.round(rect.x * dpr));
  const top = Math.max(0, Math.round(rect.y * dpr));
  const right = Math.min(frame.width, Math.round((rect.x + rect.width) * dpr));
  const bottom = Math.min(frame.height, Math.round((rect.y + rect.height) * dpr));
  if (right - left < 2 || bottom - top < 2) return undefined;
  const truncated =
    rect.x < -0.5 ||
    rect.y < -0.5 ||
    (rect.x + rect.width) * dpr > frame.width + 0.5 ||
    (rect.y + rect.height) * dpr > frame.height + 0.5;
  return { region: { x: left, y: top, width: right - left, height: bottom - top }, truncated };
}
