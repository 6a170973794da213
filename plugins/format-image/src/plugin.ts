import { definePlugin, FORMATTER } from "@renderkit/core";
import { DEFAULT_ENCODER } from "./encoder.js";
import { ImageFormatter } from "./image-formatter.js";
import { configureSharp, defaultConcurrency } from "./sharp-setup.js";

/** Options of `imageFormats()`. */
export interface ImageFormatsOptions {
  /** AVIF encoder effort, 0 (fastest) to 9. Default 2 (see the README for measured times). */
  avifEffort?: number;
  /** WebP encoder effort, 0 (fastest) to 6. Default 2. */
  webpEffort?: number;
  /** libvips threads per image (`sharp.concurrency`, process-wide), 1 to 64. Default: cores, at most 4. */
  concurrency?: number;
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`imageFormats: ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/**
 * The png, jpg, webp and avif formats (sharp). Options are checked when the factory is called;
 * sharp is configured when a renderer registers the plugin.
 */
export const imageFormats = definePlugin((options: ImageFormatsOptions = {}) => {
  const encoder = {
    avifEffort: checkInteger("avifEffort", options.avifEffort ?? DEFAULT_ENCODER.avifEffort, 0, 9),
    webpEffort: checkInteger("webpEffort", options.webpEffort ?? DEFAULT_ENCODER.webpEffort, 0, 6),
  };
  const concurrency = checkInteger("concurrency", options.concurrency ?? defaultConcurrency(), 1, 64);
  return {
    name: "@renderkit/format-image",
    register({ provide }) {
      configureSharp(concurrency);
      provide(FORMATTER, new ImageFormatter(encoder));
    },
  };
});
