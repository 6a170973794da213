import type { Capture } from "@renderkit/core/page";
import { loadSharp } from "./sharp-setup.js";
import { INPUT_LIMIT } from "./stitch.js";

/** Largest difference per channel (0–255) between the pixels of a capture still called flat. */
export const FLAT_TOLERANCE = 3;

/**
 * Bytes per device pixel above which an encoded capture cannot be flat, so it is not decoded.
 * Chromium encodes a flat capture in ~0.005 B/px (PNG) and ~0.006 B/px (JPEG q80) whatever the
 * colour and size (measured 400×300 to 1280×20,000, dpr 1 and 2); pages with text over much of
 * the viewport are well above 0.02, so most renders skip decoding. Sparse pages (example.com's
 * 1280×1024 PNG is at 0.0125–0.02) are decoded, which `widen` keeps to a few milliseconds.
 */
const FLAT_MAX_BYTES_PER_PIXEL = 0.02;
/**
 * The same bound for a capture encoded for speed (`optimizeForSpeed`: zlib level 1): flat ones
 * measured 0.016–0.018 B/px opaque and 0.021–0.023 transparent, up to 0.03 at 400×300.
 */
const FAST_FLAT_MAX_BYTES_PER_PIXEL = 0.035;
/** Fixed part of the same bound (headers, small images). */
const FLAT_MAX_BYTES = 4_096;

/** One image's range of values per channel (sharp's `stats()`), merged across sections. */
export interface ChannelRange {
  min: number[];
  max: number[];
}

/** Whether a channel range is one colour within `FLAT_TOLERANCE`. */
export function isFlatRange(range: ChannelRange): boolean {
  return range.min.every((min, i) => (range.max[i] ?? min) - min <= FLAT_TOLERANCE);
}

/**
 * Whether an encoded image is small enough for its pixel count to possibly be one flat colour
 * (`optimizedForSpeed`: it may have been encoded for speed).
 */
export function mayBeFlat(bytes: Uint8Array, pixels: number, optimizedForSpeed = false): boolean {
  const perPixel = optimizedForSpeed ? FAST_FLAT_MAX_BYTES_PER_PIXEL : FLAT_MAX_BYTES_PER_PIXEL;
  return bytes.byteLength <= FLAT_MAX_BYTES + pixels * perPixel;
}

/**
 * Largest section decoded to raw pixels and scanned here (stopping at the first row that breaks
 * flatness): 8 M pixels (32 MB of RGBA, a retina viewport). Larger sections go through sharp's
 * `stats()`, which streams. Decoding a 1280×1024 PNG takes ~6 ms; `stats()` on it ~33 ms.
 */
const RAW_SCAN_MAX_PIXELS = 8 * 1024 * 1024;

/** Widens `range` by every pixel of `data` (`channels` per pixel); false as soon as it is not flat. */
function scan(data: Uint8Array, channels: number, rowLength: number, range: ChannelRange): boolean {
  const { min, max } = range;
  for (let c = 0; c < channels; c++) {
    min[c] ??= 255;
    max[c] ??= 0;
  }
  for (let row = 0; row < data.length; row += rowLength) {
    const end = Math.min(data.length, row + rowLength);
    for (let i = row; i < end; i += channels) {
      for (let c = 0; c < channels; c++) {
        const v = data[i + c] ?? 0;
        if (v < (min[c] ?? 255)) min[c] = v;
        if (v > (max[c] ?? 0)) max[c] = v;
      }
    }
    if (!isFlatRange(range)) return false;
  }
  return true;
}

/** Widens `range` by one encoded section; false when the section breaks flatness. */
async function widen(bytes: Uint8Array, range: ChannelRange): Promise<boolean> {
  const { width = 0, height = 0 } = await loadSharp()(bytes, INPUT_LIMIT).metadata();
  if (width * height <= RAW_SCAN_MAX_PIXELS) {
    const { data, info } = await loadSharp()(bytes, INPUT_LIMIT).raw().toBuffer({ resolveWithObject: true });
    return scan(data, info.channels, info.width * info.channels, range);
  }
  const { channels } = await loadSharp()(bytes, INPUT_LIMIT).stats();
  channels.forEach((channel, i) => {
    range.min[i] = Math.min(range.min[i] ?? 255, channel.min);
    range.max[i] = Math.max(range.max[i] ?? 0, channel.max);
  });
  return isFlatRange(range);
}

/**
 * Whether every pixel of the capture (all sections, all channels, alpha included) is the same
 * colour within `FLAT_TOLERANCE`. Sections too large to be flat answer false without decoding;
 * the others are decoded one at a time, stopping at the first that breaks flatness.
 */
export async function isFlatCapture(
  capture: Pick<Capture, "sections" | "width" | "deviceScaleFactor"> & Partial<Pick<Capture, "optimizedForSpeed">>,
): Promise<boolean> {
  const dpr = capture.deviceScaleFactor;
  const deviceWidth = Math.ceil(capture.width * dpr);
  const fast = capture.optimizedForSpeed === true;
  if (!capture.sections.every((s) => mayBeFlat(s.bytes, deviceWidth * Math.ceil(s.height * dpr), fast))) return false;
  const range: ChannelRange = { min: [], max: [] };
  for (const section of capture.sections) {
    if (!(await widen(section.bytes, range))) return false;
  }
  return true;
}
