import type { FormatSpec } from "@renderkit/core";

/** The formats this package produces (values of the `format` option; `jpeg` is parsed as `jpg`). */
export type ImageFormat = "png" | "jpg" | "webp" | "avif";

/** Format specs registered with the renderer; every one needs only a screenshot. */
export const IMAGE_FORMATS: readonly (FormatSpec & { format: ImageFormat })[] = [
  { format: "png", contentType: "image/png", extension: "png", requires: ["screenshot"] },
  { format: "jpg", contentType: "image/jpeg", extension: "jpg", requires: ["screenshot"], aliases: ["jpeg"] },
  { format: "webp", contentType: "image/webp", extension: "webp", requires: ["screenshot"] },
  { format: "avif", contentType: "image/avif", extension: "avif", requires: ["screenshot"] },
];

/**
 * Largest width or height each encoder accepts, in pixels (libwebp: 16383, libheif as sharp
 * builds it: 16384, JPEG: 65535). Larger outputs are cut to this size and marked `truncated`.
 */
export const MAX_DIMENSION: Readonly<Record<ImageFormat, number>> = {
  png: 0x7fffffff,
  jpg: 65_535,
  webp: 16_383,
  avif: 16_384,
};

/** Narrows a format value to one of ours. */
export function isImageFormat(format: string): format is ImageFormat {
  return Object.hasOwn(MAX_DIMENSION, format);
}
