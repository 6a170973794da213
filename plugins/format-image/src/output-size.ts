/** A size in device pixels. */
export interface Size {
  width: number;
  height: number;
}

/** `img_fit` values (sharp's resize `fit`). */
export type ImgFit = "cover" | "contain" | "fill" | "inside" | "outside";

/** What `thumb_width` / `thumb_height` (and `img_fit`) ask for, in output pixels. */
export interface ThumbRequest {
  width?: number;
  height?: number;
  /** `img_fit`; only with both sides (the option rules refuse it otherwise). */
  fit?: ImgFit;
}

/** How an input becomes the output: the resize to apply, if any, and the final size. */
export interface OutputPlan {
  /** Target of the resize: `fill` for an aspect-keeping one-side thumb (both sides computed here), `cover` for a box, or `img_fit`. */
  resize?: Size & { fit: ImgFit };
  /** Final size of the image after any cut to the encoder's limit (padding and header strip not included). */
  width: number;
  height: number;
  /** True when the encoder's dimension limit cut the image. */
  truncated: boolean;
}

/** Size sharp gives an `inside` / `outside` fit of `input` in the box. */
function boxFit(input: Size, box: Size, fit: "inside" | "outside"): Size {
  const scale = (fit === "inside" ? Math.min : Math.max)(box.width / input.width, box.height / input.height);
  return { width: Math.max(1, Math.round(input.width * scale)), height: Math.max(1, Math.round(input.height * scale)) };
}

/**
 * Thumb semantics (documented in the README):
 * - one side given: scale to that side keeping the aspect ratio, never enlarging; a thumb is a
 *   reduction, and refusing to enlarge bounds memory by the capture's own size (`device_scale_factor`
 *   is the way to get more pixels);
 * - both sides given: cover the box and crop to exactly that size, anchored at the top (the top of a
 *   page is what a screenshot thumbnail is for), centred horizontally; this may enlarge; `img_fit`
 *   chooses another fit (`inside` and `outside` give a size other than the box);
 * - none: the capture's size.
 * Then each side is cut to `maxDimension` (the encoder's limit) less `reserve` (padding and header
 * strip added afterwards), keeping the top-left.
 * The other side of a one-side thumb is computed here (not by sharp) so the plan is exact.
 */
export function planOutput(
  input: Size,
  thumb: ThumbRequest,
  maxDimension: number,
  reserve: Size = { width: 0, height: 0 },
): OutputPlan {
  let resize: OutputPlan["resize"];
  let size: Size = input;
  const { width: tw, height: th } = thumb;
  if (tw !== undefined && th !== undefined) {
    const fit = thumb.fit ?? "cover";
    resize = { width: tw, height: th, fit };
    size = fit === "inside" || fit === "outside" ? boxFit(input, { width: tw, height: th }, fit) : { width: tw, height: th };
  } else if (tw !== undefined && tw < input.width) {
    resize = { width: tw, height: Math.max(1, Math.round((input.height * tw) / input.width)), fit: "fill" };
    size = resize;
  } else if (th !== undefined && th < input.height) {
    resize = { width: Math.max(1, Math.round((input.width * th) / input.height)), height: th, fit: "fill" };
    size = resize;
  }
  if (resize && size.width === input.width && size.height === input.height) {
    resize = undefined;
    size = input;
  }
  const width = Math.min(size.width, Math.max(1, maxDimension - reserve.width));
  const height = Math.min(size.height, Math.max(1, maxDimension - reserve.height));
  return { resize, width, height, truncated: width < size.width || height < size.height };
}
