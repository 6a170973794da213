import { MAX_TOTAL_PIXELS } from "@renderkit/core/page";
import type { Sharp } from "sharp";
import type { Size } from "./output-size.js";
import { loadSharp } from "./sharp-setup.js";

/**
 * Largest input sharp reads, per image: one capture is at most 16,383² device pixels and a
 * stitched one at most `MAX_TOTAL_PIXELS` (the same number); anything bigger is refused unread.
 */
export const INPUT_LIMIT = { limitInputPixels: MAX_TOTAL_PIXELS };

/** The PNG signature, then the first chunk's length (13) and type: IHDR. */
const PNG_START = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52];

/**
 * The size a PNG's IHDR chunk gives (width and height, big-endian, just after it): what every
 * capture of the engines is, read without a call into sharp (~3 ms of the main thread per render).
 */
function pngSize(bytes: Uint8Array): Size | undefined {
  if (bytes.length < 24 || PNG_START.some((byte, i) => bytes[i] !== byte)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 24);
  const size = { width: view.getUint32(16), height: view.getUint32(20) };
  return size.width > 0 && size.height > 0 ? size : undefined;
}

/** Pixel size of an encoded image, from its header only (no decoding). */
export async function imageSize(bytes: Uint8Array): Promise<Size> {
  const png = pngSize(bytes);
  if (png) return png;
  const { width, height } = await loadSharp()(bytes, INPUT_LIMIT).metadata();
  return { width, height };
}

/** A sharp pipeline reading one image, or several stacked top to bottom, and the size it yields. */
export interface OpenedImage {
  pipeline: Sharp;
  size: Size;
}

/**
 * Opens the sections of a capture as one image, the first on top. One section is read as it is,
 * or cut on the right to `maxWidth` pixels when wider (sections of an area capture are already cut).
 * Several of equal height (the last may be shorter) are joined by libvips (`join`, one per row):
 * the join pads the last row to the others' height and an extract cuts the padding. libvips reads
 * the inputs in order, strip by strip, so memory stays near one strip of the output, not the whole
 * image (measured: 113 MB peak RSS for a 2560×80,000 PNG, against 820 MB of raw pixels).
 * Sections of unequal heights (a scale factor whose sections cannot all be whole device pixels)
 * are composited onto a canvas and materialised as a fast PNG first, because sharp composites after
 * resizing and the caller may resize.
 */
export async function openSections(sections: readonly Uint8Array[], maxWidth?: number): Promise<OpenedImage> {
  const [first] = sections;
  if (!first) throw new RangeError("a capture has at least one section");
  if (sections.length === 1) {
    const size = await imageSize(first);
    const pipeline = loadSharp()(first, INPUT_LIMIT);
    if (maxWidth === undefined || size.width <= maxWidth) return { pipeline, size };
    // A viewport capture cut to `max_width` (a pre-resize extract: sharp cuts before any thumb resize).
    const cut = { width: maxWidth, height: size.height };
    return { pipeline: pipeline.extract({ left: 0, top: 0, ...cut }), size: cut };
  }
  const sizes = await Promise.all(sections.map(imageSize));
  const width = sizes[0]?.width ?? 0;
  if (sizes.some((s) => s.width !== width)) throw new RangeError("the sections of a capture differ in width");
  const height = sizes.reduce((sum, s) => sum + s.height, 0);
  if (width * height > MAX_TOTAL_PIXELS) throw new RangeError(`a ${width}×${height} capture is above the pixel limit`);
  const cell = sizes[0]?.height ?? 0;
  const uniform = sizes.every((s, i) => (i === sizes.length - 1 ? s.height <= cell : s.height === cell));
  const inputs = sections.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength));
  if (uniform) {
    let pipeline = loadSharp()(inputs, { ...INPUT_LIMIT, join: { across: 1 } });
    if (height < cell * sections.length) pipeline = pipeline.extract({ left: 0, top: 0, width, height });
    return { pipeline, size: { width, height } };
  }
  let top = 0;
  const layers = inputs.map((input, i) => {
    const layer = { input, top, left: 0, limitInputPixels: INPUT_LIMIT.limitInputPixels };
    top += sizes[i]?.height ?? 0;
    return layer;
  });
  const canvas = { width, height, channels: 4 as const, background: { r: 0, g: 0, b: 0, alpha: 0 } };
  const flat = await loadSharp()({ create: canvas, ...INPUT_LIMIT })
    .composite(layers)
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { pipeline: loadSharp()(flat, INPUT_LIMIT), size: { width, height } };
}
