import type { Sharp } from "sharp";
import type { ImageFormat } from "./formats.js";

/** Encoder speed settings, fixed per renderer (`imageFormats({ avifEffort, webpEffort })`). */
export interface EncoderSettings {
  /** AVIF effort, 0 (fastest) to 9. */
  avifEffort: number;
  /** WebP effort, 0 (fastest) to 6. */
  webpEffort: number;
}

/**
 * Defaults chosen for interactive renders (1280×800 screenshot, quality 80, sharp concurrency 2,
 * this project's 2-core reference machine; see the README for the table):
 * - AVIF effort 2: ~145 ms and 56 KB, against ~840 ms and 52 KB at libaom's default effort 4 and
 *   ~50 ms but 105 KB at effort 0 (larger than WebP, which defeats the point of AVIF).
 * - WebP effort 2: ~31 ms and 64 KB, against ~65 ms and 62 KB at the default effort 4.
 */
export const DEFAULT_ENCODER: EncoderSettings = { avifEffort: 2, webpEffort: 2 };

/** What an encoder needs from the request. */
export interface EncodeRequest {
  format: ImageFormat;
  /** 1..100, used by jpg, webp and avif. */
  quality: number;
  /** Keep the alpha channel (png, webp, avif). */
  transparent: boolean;
}

/** Applies the output encoder for `request.format` to a pipeline. */
export function encode(pipeline: Sharp, request: EncodeRequest, settings: EncoderSettings): Sharp {
  const { quality, transparent } = request;
  switch (request.format) {
    case "png":
      // zlib level 6: 14 ms for 227 KB; level 9 costs 4× the time for 14% fewer bytes.
      return pipeline.png({ compressionLevel: 6, adaptiveFiltering: false });
    case "jpg":
      // Plain libjpeg-turbo: mozjpeg saves ~25% of bytes but is ~10× slower.
      return pipeline.jpeg({ quality, mozjpeg: false, chromaSubsampling: "4:2:0" });
    case "webp":
      // Lossless alpha keeps anti-aliased text edges on transparent pages crisp.
      return pipeline.webp({ quality, effort: settings.webpEffort, ...(transparent ? { alphaQuality: 100 } : {}) });
    case "avif":
      // 4:4:4 keeps coloured text and thin lines sharp; screenshots are not photographs.
      return pipeline.avif({ quality, effort: settings.avifEffort, chromaSubsampling: "4:4:4" });
  }
}
