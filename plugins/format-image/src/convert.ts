import type { Padding } from "@renderkit/core/page";
import type { Sharp } from "sharp";
import { BLACK, overWhite, type Rgba, WHITE } from "./colour.js";
import { DEFAULT_ENCODER, type EncodeRequest, type EncoderSettings, encode } from "./encoder.js";
import { type ImageFormat, MAX_DIMENSION } from "./formats.js";
import { type StripText, stripSvg } from "./header-strip.js";
import { type ImgFit, planOutput } from "./output-size.js";
import { loadSharp } from "./sharp-setup.js";
import { INPUT_LIMIT, openSections } from "./stitch.js";

/** What a conversion needs: the output format and the request's image options, in output pixels. */
export interface ConvertOptions extends EncodeRequest {
  /** `thumb_width`, output pixels. */
  thumbWidth?: number;
  /** `thumb_height`, output pixels. */
  thumbHeight?: number;
  /** Cut a wider input on the right to this many pixels (`max_width` on a viewport capture). */
  maxWidth?: number;
  /** `bg_color`: painted behind the capture's transparent areas. */
  background?: Rgba;
  /** `img_fit` (with both thumb sides). */
  fit?: ImgFit;
  /** `img_position`, as sharp spells it. */
  position?: string;
  /** `img_bg`: padding and `contain` background; default black. */
  padBackground?: Rgba;
  /** `img_pad`, output pixels. */
  pad?: Padding;
  /** `show_timestamp` / `show_url`: a header strip of this height (output pixels) above everything. */
  header?: StripText & { height: number };
}

/** An encoded image and its pixel size. */
export interface ConvertResult {
  bytes: Uint8Array;
  width: number;
  height: number;
  /** True when the encoder's dimension limit cut the image (WebP above 16383 px). */
  truncated: boolean;
}

const NO_PAD: Padding = { top: 0, right: 0, bottom: 0, left: 0 };

/** Options that need sharp even for png and jpg from one capture. */
function shapes(options: Omit<ConvertOptions, "format">): boolean {
  return (
    options.thumbWidth !== undefined ||
    options.thumbHeight !== undefined ||
    options.maxWidth !== undefined ||
    options.background !== undefined ||
    options.pad !== undefined ||
    options.header !== undefined
  );
}

/**
 * The engine screenshot type that can be returned as it is, or undefined when sharp must convert.
 * png and jpg without thumbs or other shaping need no conversion: Chromium's own encoders are faster
 * than decoding and re-encoding, and a JPEG re-encoded from a JPEG would lose quality twice.
 */
export function directCaptureType(format: ImageFormat, options: Omit<ConvertOptions, "format">): "png" | "jpeg" | undefined {
  if (shapes(options)) return undefined;
  if (format === "png") return "png";
  if (format === "jpg") return "jpeg";
  return undefined;
}

/** Paints a translucent `bg_color` behind the image (sharp's flatten would drop its alpha); materialised once. */
async function behind(pipeline: Sharp, size: { width: number; height: number }, colour: Rgba): Promise<Sharp> {
  const canvas = { create: { ...size, channels: 4 as const, background: colour } };
  const flat = await pipeline
    .ensureAlpha()
    .composite([{ input: canvas, blend: "dest-over" }])
    .png({ compressionLevel: 1 })
    .toBuffer();
  return loadSharp()(flat, INPUT_LIMIT);
}

/**
 * Converts an image (a PNG screenshot, or the sections of a tall one, stacked in order: see
 * `openSections`) to `options.format`, in this order: cut to `maxWidth`; the capture's transparent
 * areas painted with `background` (`bg_color`), kept when `transparent` and the format has alpha,
 * otherwise flattened onto white (as Chromium paints pages without a background); thumb resize
 * (see `planOutput`) with `fit` / `position` / `padBackground`; the cut to the encoder's limit;
 * `pad`; the header strip on top; then encoded. Translucent colours keep their alpha where the
 * format has one and are painted over white in a JPEG. No cache: nothing is held after the promise settles.
 */
export async function convertImage(
  input: Uint8Array | readonly Uint8Array[],
  options: ConvertOptions,
  encoder: EncoderSettings = DEFAULT_ENCODER,
): Promise<ConvertResult> {
  const jpg = options.format === "jpg";
  const opaque = (colour: Rgba) => (jpg ? overWhite(colour) : colour);
  const opened = await openSections(input instanceof Uint8Array ? [input] : input, options.maxWidth);
  const pad = options.pad ?? NO_PAD;
  const strip = options.header?.height ?? 0;
  const reserve = { width: pad.left + pad.right, height: pad.top + pad.bottom + strip };
  const thumb = { width: options.thumbWidth, height: options.thumbHeight, fit: options.fit };
  const plan = planOutput(opened.size, thumb, MAX_DIMENSION[options.format], reserve);
  const background = options.background && opaque(options.background);
  const padBackground = opaque(options.padBackground ?? BLACK);
  let pipeline = opened.pipeline;
  let alpha = options.transparent && !jpg;
  if (background && background.alpha < 1) {
    pipeline = await behind(pipeline, opened.size, background);
  } else if (background) {
    pipeline = pipeline.flatten({ background });
    alpha = false;
  } else if (!alpha) {
    pipeline = pipeline.flatten({ background: WHITE });
  }
  if (plan.resize) {
    const { width, height, fit } = plan.resize;
    const position = options.position ?? (fit === "contain" ? "centre" : "top");
    pipeline = pipeline.resize({ width, height, fit, position, background: padBackground });
  }
  // After a resize (or the cut of a stitched image), sharp applies this extract to the result.
  if (plan.truncated) pipeline = pipeline.extract({ left: 0, top: 0, width: plan.width, height: plan.height });
  if (options.pad || strip > 0) {
    pipeline = pipeline.extend({ ...pad, top: pad.top + strip, background: padBackground });
  }
  if (options.header) {
    const width = plan.width + pad.left + pad.right;
    pipeline = pipeline.composite([{ input: stripSvg(width, strip, options.header), top: 0, left: 0 }]);
  }
  const transparent = alpha || (!jpg && (background?.alpha ?? 1) < 1);
  const { data, info } = await encode(pipeline, { ...options, transparent }, encoder).toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height, truncated: plan.truncated };
}
