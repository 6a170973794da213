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
 * Largest section decoded to raw pixels, all channels at once, and scanned here (stopping at the
 * first row that breaks flatness): 8 M pixels (32 MB of RGBA, a retina viewport). Decoding a
 * 1280×1024 PNG takes ~6 ms.
 */
const RAW_SCAN_MAX_PIXELS = 8 * 1024 * 1024;
/**
 * Largest section decoded one channel at a time (`extractChannel`: at most 32 MB per decode, the
 * bound above): a section of a tall capture, 1280×8,192 device pixels at dpr 1 or 2560×8,192 at
 * dpr 2. A flat 1280×8,192 PNG takes ~70 ms for its four channels, against ~430 ms through sharp's
 * `stats()`, whose sums and deviations in double precision cost far more than the decoding. Larger
 * sections (a wide `full_width` capture) go through `stats()`, which streams.
 */
const CHANNEL_SCAN_MAX_PIXELS = 32 * 1024 * 1024;

/** Widens `range` by every pixel of `data` (`channels` per pixel, from channel `first` on); false as soon as it is not flat. */
function scan(data: Uint8Array, channels: number, rowLength: number, range: ChannelRange, first = 0): boolean {
  const { min, max } = range;
  for (let row = 0; row < data.length; row += rowLength) {
    const end = Math.min(data.length, row + rowLength);
    // One channel at a time, in locals: the loop runs over every byte of the capture.
    for (let c = 0; c < channels; c++) {
      let lo = min[first + c] ?? 255;
      let hi = max[first + c] ?? 0;
      for (let i = row + c; i < end; i += channels) {
        const v = data[i]!;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      min[first + c] = lo;
      max[first + c] = hi;
    }
    if (!isFlatRange(range)) return false;
  }
  return true;
}

/** Widens `range` by one encoded section; false when the section breaks flatness. */
async function widen(bytes: Uint8Array, range: ChannelRange): Promise<boolean> {
  const { width = 0, height = 0, channels = 4 } = await loadSharp()(bytes, INPUT_LIMIT).metadata();
  if (width * height <= RAW_SCAN_MAX_PIXELS) {
    const { data, info } = await loadSharp()(bytes, INPUT_LIMIT).raw().toBuffer({ resolveWithObject: true });
    return scan(data, info.channels, info.width * info.channels, range);
  }
  if (width * height <= CHANNEL_SCAN_MAX_PIXELS) {
    for (let c = 0; c < channels; c++) {
      const data = await loadSharp()(bytes, INPUT_LIMIT)
        .extractChannel(c as 0 | 1 | 2 | 3)
        .raw()
        .toBuffer();
      if (!scan(data, 1, width, range, c)) return false;
    }
    return true;
  }
  const stats = await loadSharp()(bytes, INPUT_LIMIT).stats();
  stats.channels.forEach((channel, i) => {
    range.min[i] = Math.min(range.min[i] ?? 255, channel.min);
    range.max[i] = Math.max(range.max[i] ?? 0, channel.max);
  });
  return isFlatRange(range);
}

/**
 * The sections in the order they are decoded: the most encoded bytes per row first. Content
 * compresses worse than an empty background, so the section most likely to break flatness (a
 * tall page's only line of text, at its bottom) is decoded first and ends the check; only a
 * capture that is flat throughout decodes every section, each once.
 */
export function densestFirst<T extends { bytes: Uint8Array; height: number }>(sections: readonly T[]): T[] {
  const density = (s: T) => s.bytes.byteLength / Math.max(1, s.height);
  return [...sections].sort((a, b) => density(b) - density(a));
}

/**
 * Whether every pixel of the capture (all sections, all channels, alpha included) is the same
 * colour within `FLAT_TOLERANCE`. Sections too large to be flat answer false without decoding;
 * the others are decoded one at a time, densest first (`densestFirst`), stopping at the first
 * that breaks flatness.
 */
export async function isFlatCapture(
  capture: Pick<Capture, "sections" | "width" | "deviceScaleFactor"> & Partial<Pick<Capture, "optimizedForSpeed">>,
): Promise<boolean> {
  const dpr = capture.deviceScaleFactor;
  const deviceWidth = Math.ceil(capture.width * dpr);
  const fast = capture.optimizedForSpeed === true;
  if (!capture.sections.every((s) => mayBeFlat(s.bytes, deviceWidth * Math.ceil(s.height * dpr), fast))) return false;
  const range: ChannelRange = { min: [], max: [] };
  for (const section of densestFirst(capture.sections)) {
    if (!(await widen(section.bytes, range))) return false;
  }
  return true;
}
