import { DEFAULT_ENCODER, type EncodeRequest, type EncoderSettings, encode } from "./encoder.js";
import { type ImageFormat, MAX_DIMENSION } from "./formats.js";
import { planOutput } from "./output-size.js";
import { openSections } from "./stitch.js";

/** What a conversion needs: the output format and the request's image options. */
export interface ConvertOptions extends EncodeRequest {
  /** `thumb_width`, output pixels. */
  thumbWidth?: number;
  /** `thumb_height`, output pixels. */
  thumbHeight?: number;
}

/** An encoded image and its pixel size. */
export interface ConvertResult {
  bytes: Uint8Array;
  width: number;
  height: number;
  /** True when the encoder's dimension limit cut the image (WebP above 16383 px). */
  truncated: boolean;
}

const WHITE = { r: 255, g: 255, b: 255 };

/**
 * The engine screenshot type that can be returned as it is, or undefined when sharp must convert.
 * png and jpg without thumbs need no conversion: Chromium's own encoders are faster than
 * decoding and re-encoding, and a JPEG re-encoded from a JPEG would lose quality twice.
 */
export function directCaptureType(format: ImageFormat, options: Omit<ConvertOptions, "format">): "png" | "jpeg" | undefined {
  if (options.thumbWidth !== undefined || options.thumbHeight !== undefined) return undefined;
  if (format === "png") return "png";
  if (format === "jpg") return "jpeg";
  return undefined;
}

/**
 * Converts an image (a PNG screenshot, or the sections of a tall one, stacked in order: see
 * `openSections`) to `options.format`: thumb resize (see `planOutput`),
 * alpha kept when `transparent` and the format has alpha, otherwise flattened onto white (as
 * Chromium paints pages without a background), then encoded. One sharp pipeline, no cache:
 * nothing is held after the promise settles.
 */
export async function convertImage(
  input: Uint8Array | readonly Uint8Array[],
  options: ConvertOptions,
  encoder: EncoderSettings = DEFAULT_ENCODER,
): Promise<ConvertResult> {
  const opened = await openSections(input instanceof Uint8Array ? [input] : input);
  const plan = planOutput(opened.size, { width: options.thumbWidth, height: options.thumbHeight }, MAX_DIMENSION[options.format]);
  const transparent = options.transparent && options.format !== "jpg";
  let pipeline = opened.pipeline;
  if (plan.resize) {
    const { width, height, fit } = plan.resize;
    pipeline = pipeline.resize({ width, height, fit, position: "top" });
  }
  // After a resize (or the cut of a stitched image), sharp applies this extract to the result.
  if (plan.truncated) pipeline = pipeline.extract({ left: 0, top: 0, width: plan.width, height: plan.height });
  if (!transparent) pipeline = pipeline.flatten({ background: WHITE });
  const { data, info } = await encode(pipeline, { ...options, transparent }, encoder).toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height, truncated: plan.truncated };
}
