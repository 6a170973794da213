import type { FormatContext, FormatOutput, Formatter, PageSession, PageSettings } from "@renderkit/core";
import { MAX_CAPTURE_PIXELS } from "@renderkit/core/page";
import { captureArea } from "./capture-area.js";
import { svgFromDom } from "./dom-method.js";
import { SVG_FORMAT, type SvgMethod, type SvgOptions, svgOptions } from "./format.js";
import { svgFromPdf } from "./pdf-method.js";

/** Fixed per renderer: `svgFormat(options)`. */
export interface SvgSettings {
  /** Method when the request sets no `svg_method`. */
  defaultMethod: SvgMethod;
  /** pdftocairo executable. */
  pdftocairo: string;
  /** Upper bound for one pdftocairo run, in ms (the render's own timeout applies too). */
  pdftocairoTimeoutMs: number;
}

/**
 * The `svg` format: a vector SVG of what the request asks to capture (`selector`, `full_page` or
 * the viewport, as for screenshots), one user unit per CSS pixel. `svg_method` picks how:
 * `pdf` (default, faithful) or `dom` (real text). Pages load with `media: screen`, as screenshots do.
 * Result extras: `method`, `width` and `height` (CSS pixels of the captured area), `truncated`.
 */
type SvgTable = ReturnType<typeof svgOptions>;

export class SvgFormatter implements Formatter<SvgTable> {
  readonly name = "@renderkit/format-svg";
  readonly formats = [SVG_FORMAT];
  readonly options: SvgTable;

  constructor(private readonly settings: SvgSettings) {
    this.options = svgOptions(settings.defaultMethod);
  }

  pageSettings(): Partial<PageSettings> {
    return { media: "screen" };
  }

  /** The SVG stops at 16,383 CSS px (its own bound, `MAX_CAPTURE_PIXELS`), whatever the scale factor. */
  maxPixelHeight(options: SvgOptions): number {
    return MAX_CAPTURE_PIXELS * options.deviceScaleFactor;
  }

  async render(session: PageSession, context: FormatContext<SvgTable>): Promise<FormatOutput> {
    const { options, signal, logger, renderId } = context;
    const method: SvgMethod = options.svgMethod ?? this.settings.defaultMethod;
    const area = await captureArea(session, options);
    const svg =
      method === "dom"
        ? await svgFromDom(session, area, {
            transparent: options.transparent,
            inline: !options.disableJs,
            signal,
            // Only the count: resource addresses are the page's data and stay out of logs.
            onNotInlined: (count) => logger.warn("svg: some images could not be inlined", { renderId, count }),
          })
        : await svgFromPdf(session, area, {
            viewportWidth: options.width,
            viewportHeight: options.height,
            transparent: options.transparent,
            pdftocairo: this.settings.pdftocairo,
            timeoutMs: this.settings.pdftocairoTimeoutMs,
            signal,
          });
    return {
      body: Buffer.from(svg, "utf8"),
      extras: { method, width: area.width, height: area.height, truncated: area.truncated },
    };
  }
}
