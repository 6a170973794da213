/** A size in device pixels. */
export interface Size {
  width: number;
  height: number;
}

/** What `thumb_width` / `thumb_height` ask for, in output pixels. */
export interface ThumbRequest {
  width?: number;
  height?: number;
}

/** How an input becomes the output: the resize to apply, if any, and the final size. */
export interface OutputPlan {
  /** Target of the resize: `fill` for an aspect-keeping one-side thumb (both sides computed here), `cover` for a box. */
  resize?: Size & { fit: "fill" | "cover" };
  /** Final size after any cut to the encoder's limit. */
  width: number;
  height: number;
  /** True when the encoder's dimension limit cut the image. */
  truncated: boolean;
}

/**
 * Thumb semantics (documented in the README):
 * - one side given: scale to that side keeping the aspect ratio, never enlarging; a thumb is a
 *   reduction, and refusing to enlarge bounds memory by the capture's own size (`device_scale_factor`
 *   is the way to get more pixels);
 * - both sides given: cover the box and crop to exactly that size, anchored at the top (the top of a
 *   page is what a screenshot thumbnail is for), centred horizontally; this may enlarge;
 * - none: the capture's size.
 * Then each side is cut to `maxDimension` (the encoder's limit), keeping the top-left.
 * The other side of a one-side thumb is computed here (not by sharp) so the plan is exact.
 */
export function planOutput(input: Size, thumb: ThumbRequest, maxDimension: number): OutputPlan {
  let resize: OutputPlan["resize"];
  const { width: tw, height: th } = thumb;
  if (tw !== undefined && th !== undefined) {
    resize = { width: tw, height: th, fit: "cover" };
  } else if (tw !== undefined && tw < input.width) {
    resize = { width: tw, height: Math.max(1, Math.round((input.height * tw) / input.width)), fit: "fill" };
  } else if (th !== undefined && th < input.height) {
    resize = { width: Math.max(1, Math.round((input.width * th) / input.height)), height: th, fit: "fill" };
  }
  if (resize && resize.width === input.width && resize.height === input.height) resize = undefined;
  const size = resize ?? input;
  const width = Math.min(size.width, maxDimension);
  const height = Math.min(size.height, maxDimension);
  return { resize, width, height, truncated: width < size.width || height < size.height };
}
