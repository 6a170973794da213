import {
  abortReason,
  type FormatContext,
  type FormatOutput,
  type FormatSpec,
  type Formatter,
  type PageSession,
  raceSignal,
} from "@renderkit/core";
import { sleep } from "@renderkit/core/internal";
import {
  type Capture,
  type CaptureLimits,
  captureScreenshot,
  checkViewportPixels,
  hasVisibleContent,
  nextFrames,
} from "@renderkit/core/page";
import { isFlatCapture } from "./blank.js";
import { type ConvertResult, convertImage, directCaptureType } from "./convert.js";
import { DEFAULT_ENCODER, type EncoderSettings } from "./encoder.js";
import { IMAGE_FORMATS, isImageFormat, MAX_DIMENSION } from "./formats.js";
import { IMAGE_OPTIONS, IMAGE_RULES, type ImageOptions } from "./options.js";
import { addedHeight, convertOptions, validateShaping, withCapture } from "./shaping.js";
import { imageSize } from "./stitch.js";

/** Pause before the second capture of a blank-looking page (after two animation frames), in ms. */
export const BLANK_RETRY_MS = 250;

/** A capture, and whether it is one flat colour (after the retry, when there was one). */
interface CheckedCapture {
  capture: Capture;
  blank: boolean;
}

/**
 * Captures and reports `blank` when the capture is one flat colour (`isFlatCapture`: every section,
 * within `FLAT_TOLERANCE`), whatever the page: an empty page, a single-colour one, a page that hides
 * its own body until a script that never came reveals it. When the DOM has visible content in the
 * captured area (`hasVisibleContent`: a fade-in that has not started, a canvas not yet drawn), the
 * page may be about to paint: it waits two animation frames and `BLANK_RETRY_MS`, then captures
 * once more and reports on that capture. A page with no visible content is not waited for.
 */
async function captureChecked(
  session: PageSession,
  options: ImageOptions,
  type: "png" | "jpeg",
  limits: CaptureLimits & { signal: AbortSignal },
): Promise<CheckedCapture> {
  const { signal } = limits;
  const capture = await captureScreenshot(session, options, type, limits);
  if (signal.aborted) throw abortReason(signal);
  if (!(await isFlatCapture(capture))) return { capture, blank: false };
  if (!(await hasVisibleContent(session, capture.area))) return { capture, blank: true };
  // With `disable_js` the page's animation frames never run: the pause alone stands in for them.
  if (!options.disableJs) await nextFrames(session);
  await sleep(BLANK_RETRY_MS, signal);
  const again = await captureScreenshot(session, options, type, limits);
  if (signal.aborted) throw abortReason(signal);
  return { capture: again, blank: await isFlatCapture(again) };
}

/**
 * png, jpg, webp and avif from a screenshot of the prepared page (`selector`, `full_page` or the
 * viewport, as `captureScreenshot` decides, with `clip`, `full_width`, `max_width`). png and jpg
 * from a single capture without shaping come straight from the engine; everything else (other
 * formats, thumbs, `bg_color`, `img_*`, the header strip, tall captures in sections) is converted
 * by sharp (`convertImage`), which stitches sections.
 * Result extras: `width` and `height` of the output in pixels, `truncated` (always), and
 * `blank: true` when the capture of the page is one flat colour (before `bg_color`, padding and
 * the header strip are added); absent otherwise.
 */
export class ImageFormatter implements Formatter<typeof IMAGE_OPTIONS> {
  readonly name = "@renderkit/format-image";
  readonly formats = IMAGE_FORMATS;
  readonly options = IMAGE_OPTIONS;
  readonly rules = IMAGE_RULES;

  constructor(private readonly encoder: EncoderSettings = DEFAULT_ENCODER) {}

  /**
   * Without thumbs the output is the capture's size (plus padding and header strip), so nothing
   * below the encoder's limit is captured.
   */
  maxPixelHeight(options: ImageOptions, spec: FormatSpec): number | undefined {
    const resized = options.thumbWidth !== undefined || options.thumbHeight !== undefined;
    return resized || !isImageFormat(spec.format) ? undefined : Math.max(1, MAX_DIMENSION[spec.format] - addedHeight(options));
  }

  /**
   * Colours (`bg_color`, `img_bg`) are checked by sharp's parser when the request is parsed; a
   * viewport capture too large for one screenshot is refused then too (400 naming `device_scale_factor`),
   * rather than timing out in the browser.
   */
  validate(options: ImageOptions): void {
    validateShaping(options);
    checkViewportPixels(options);
  }

  async render(session: PageSession, context: FormatContext<typeof IMAGE_OPTIONS>): Promise<FormatOutput> {
    const { format } = context.format;
    if (!isImageFormat(format)) throw new Error(`${this.name} cannot produce ${format}`);
    const { options, signal } = context;
    const base = await convertOptions(format, options);
    // A viewport capture is cut to `max_width` by sharp, so it cannot come straight from the engine.
    const cut = options.maxWidth !== undefined && options.maxWidth < options.width;
    const header = options.showTimestamp || options.showUrl;
    const direct = cut || header ? undefined : directCaptureType(format, base);
    const maxPixelHeight = this.maxPixelHeight(options, context.format);
    // A capture sharp converts is decoded anyway: Chromium encodes it for speed, not size.
    const optimizeForSpeed = direct === undefined || options.optimizeForSpeed;
    const limits = { maxPixelHeight, signal, optimizeForSpeed };
    const { capture, blank } = await captureChecked(session, options, direct ?? "png", limits);
    const convert = withCapture(base, options, capture, session);
    const [single] = capture.sections;
    // sharp cannot be interrupted; on abort the render answers at once and the encode finishes unobserved.
    const output: ConvertResult =
      direct && single && capture.sections.length === 1
        ? { bytes: single.bytes, ...(await imageSize(single.bytes)), truncated: false }
        : await raceSignal(
            convertImage(
              capture.sections.map((s) => s.bytes),
              convert,
              this.encoder,
            ),
            signal,
          );
    const extras: Record<string, unknown> = {
      width: output.width,
      height: output.height,
      truncated: capture.truncated || output.truncated,
    };
    if (blank) extras.blank = true;
    return { body: output.bytes, extras };
  }
}
