import { type Box, type PageSession, RenderError, type RenderOptions } from "@renderkit/core";
import { forOption, MAX_CAPTURE_PIXELS } from "@renderkit/core/page";

/** The part of the document an SVG shows, in CSS pixels of the document. */
export interface CaptureArea extends Box {
  /** True when the area was taller than `max_height` or `MAX_CAPTURE_PIXELS` and was cut. */
  truncated: boolean;
}

/** Keeps coordinates readable in the SVG (sub-pixel boxes are common; more digits add nothing). */
const round = (n: number) => Math.round(n * 1000) / 1000;

function area(box: Box, maxHeight: number = MAX_CAPTURE_PIXELS): CaptureArea {
  const height = Math.min(box.height, maxHeight, MAX_CAPTURE_PIXELS);
  return { x: round(box.x), y: round(box.y), width: round(box.width), height: round(height), truncated: height < box.height };
}

/**
 * What the request asks to capture, as the image formats decide it (`captureScreenshot` in the
 * core): the element of `selector` (falling back to the viewport unless `fail_if_selector_missing`),
 * the full page (viewport width, document height), or the viewport where it is scrolled to.
 * Element and full-page heights are cut at `max_height` CSS pixels, as for screenshots, and at
 * `MAX_CAPTURE_PIXELS` (the SVG's own bound): an infinite-scroll page must not make an unbounded SVG.
 */
export async function captureArea(session: PageSession, options: RenderOptions): Promise<CaptureArea> {
  if (options.selector) {
    const box = await forOption("selector", session.elementBox(options.selector));
    if (box && box.width > 0 && box.height > 0) return area(box, options.maxHeight);
    if (options.failIfSelectorMissing) {
      throw new RenderError("EngineResponseNotOkError", `selector: nothing visible matches "${options.selector}"`);
    }
  }
  if (options.fullPage) {
    const size = await session.documentSize();
    return area({ x: 0, y: 0, width: options.width, height: Math.max(1, size.height) }, options.maxHeight);
  }
  const scroll = await session.evaluate<{ x: number; y: number }>("() => ({ x: window.scrollX, y: window.scrollY })");
  return area({ x: scroll.x, y: scroll.y, width: options.width, height: options.height });
}
