import type { Box } from "../contracts/capture-settings.js";
import { MAX_HEIGHT } from "../options/catalogue-page.js";

/** Largest `clip` width in CSS pixels (one capture's width at device scale factor 1). */
export const MAX_CLIP_WIDTH = 16_384;
/** Largest side of `img_pad`, in output pixels. */
export const MAX_PAD = 2_000;

const NUMBER = /^\d+(\.\d+)?$/;

/** Splits `a,b,c` (spaces allowed) into non-negative decimal numbers; undefined when any part is not one. */
function numbers(text: string): number[] | undefined {
  const parts = text.split(",").map((p) => p.trim());
  if (!parts.every((p) => NUMBER.test(p))) return undefined;
  return parts.map(Number);
}

/**
 * `clip` as `x,y,width,height` in CSS pixels of the document, or undefined when it is not one:
 * four non-negative numbers, width 1..16,384, height 1..`max_height`'s bound, x and y at most that bound.
 */
export function parseClip(text: string): Box | undefined {
  const values = numbers(text);
  if (values?.length !== 4) return undefined;
  const [x = 0, y = 0, width = 0, height = 0] = values;
  if (width < 1 || height < 1 || width > MAX_CLIP_WIDTH || height > MAX_HEIGHT.max) return undefined;
  if (x > MAX_HEIGHT.max || y > MAX_HEIGHT.max) return undefined;
  return { x, y, width, height };
}

/** Padding of each side, in pixels. */
export interface Padding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * `img_pad` in pixels, CSS shorthand order: one value (all sides), two (vertical, horizontal),
 * three (top, horizontal, bottom) or four (top, right, bottom, left); whole numbers 0..2,000.
 * Undefined when it is not one of these.
 */
export function parsePadding(value: string | number): Padding | undefined {
  const values = typeof value === "number" ? [value] : numbers(value);
  if (!values || values.length < 1 || values.length > 4) return undefined;
  if (!values.every((v) => Number.isInteger(v) && v >= 0 && v <= MAX_PAD)) return undefined;
  const [top = 0, right = top, bottom = top, left = right] = values;
  return { top, right, bottom, left };
}
