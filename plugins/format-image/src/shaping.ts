import type { PageSession } from "@renderkit/core";
import { type Capture, parsePadding } from "@renderkit/core/page";
import { checkColour, parseColour } from "./colour.js";
import type { ConvertOptions } from "./convert.js";
import type { ImageFormat } from "./formats.js";
import { STRIP_CSS_HEIGHT } from "./header-strip.js";
import type { ImageOptions } from "./options.js";

type Options = ImageOptions;

/** Checks what only sharp can check, when the request is parsed: the colours of `bg_color` and `img_bg`. */
export function validateShaping(options: Options): void {
  checkColour("bgColor", options.bgColor);
  checkColour("imgBg", options.imgBg);
}

/** Output pixels per CSS pixel of `thumb_*` and `img_pad`: the device scale factor with `force_dpr`, else 1. */
function outputScale(options: Options): number {
  return options.forceDpr ? options.deviceScaleFactor : 1;
}

/** Height of the header strip in output pixels, 0 without one. */
export function stripHeight(options: Options): number {
  return options.showTimestamp || options.showUrl ? Math.round(STRIP_CSS_HEIGHT * options.deviceScaleFactor) : 0;
}

/** `img_pad` in output pixels. */
export function padding(options: Options): ConvertOptions["pad"] {
  const pad = options.imgPad === undefined ? undefined : parsePadding(options.imgPad);
  if (!pad) return undefined;
  const k = outputScale(options);
  return { top: pad.top * k, right: pad.right * k, bottom: pad.bottom * k, left: pad.left * k };
}

/** Output pixels the padding and the header strip add to the height. */
export function addedHeight(options: Options): number {
  const pad = padding(options);
  return stripHeight(options) + (pad ? pad.top + pad.bottom : 0);
}

/** The part of `ConvertOptions` that does not depend on the page: format, quality, thumbs, fit, pad. */
export async function convertOptions(format: ImageFormat, options: Options): Promise<ConvertOptions> {
  const k = outputScale(options);
  const scaled = (v: number | undefined) => (v === undefined ? undefined : Math.max(1, Math.round(v * k)));
  return {
    format,
    quality: options.quality,
    transparent: options.transparent,
    thumbWidth: scaled(options.thumbWidth),
    thumbHeight: scaled(options.thumbHeight),
    background: await parseColour(options.bgColor as string | undefined),
    fit: options.imgFit as ConvertOptions["fit"],
    position: options.imgPosition as string | undefined,
    padBackground: await parseColour(options.imgBg as string | undefined),
    pad: padding(options),
  };
}

/** Adds what the capture decides: the `max_width` cut of a viewport capture, and the header strip's text. */
export function withCapture(convert: ConvertOptions, options: Options, capture: Capture, session: PageSession): ConvertOptions {
  const out = { ...convert };
  if (capture.area === undefined && capture.width < options.width) {
    out.maxWidth = Math.round(capture.width * capture.deviceScaleFactor);
  }
  const height = stripHeight(options);
  if (height > 0) {
    out.header = {
      height,
      time: options.showTimestamp ? new Date() : undefined,
      url: options.showUrl ? session.response.url : undefined,
    };
  }
  return out;
}
