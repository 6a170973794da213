import { RenderError, snakeName } from "@renderkit/core";
import { loadSharp } from "./sharp-setup.js";

/** A colour as sharp takes it: channels 0–255, alpha 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  alpha: number;
}

export const WHITE: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };
export const BLACK: Rgba = { r: 0, g: 0, b: 0, alpha: 1 };

/**
 * Checks a CSS colour option (`bg_color`, `img_bg`) with sharp's own colour parser when the
 * request is parsed, so a bad colour is a 400 naming the option, never a failed render.
 */
export function checkColour(option: string, value: unknown): void {
  if (value === undefined) return;
  // Loaded outside the check: sharp failing to load is no bad colour.
  const sharp = loadSharp();
  try {
    sharp({ create: { width: 1, height: 1, channels: 4, background: String(value) } });
  } catch {
    const name = snakeName(option);
    throw new RenderError("InvalidOptions", `Option ${name} must be a CSS colour (#rrggbb, rgb(), rgba(), hsl() or a name)`, {
      details: { option: name },
    });
  }
}

/** The RGBA value of a CSS colour, as sharp parses it (undefined stays undefined). */
export async function parseColour(value: string | undefined): Promise<Rgba | undefined> {
  if (value === undefined) return undefined;
  const { data } = await loadSharp()({ create: { width: 1, height: 1, channels: 4, background: value } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { r: data[0] ?? 0, g: data[1] ?? 0, b: data[2] ?? 0, alpha: (data[3] ?? 255) / 255 };
}

/** `colour` painted over white, opaque (what a translucent colour becomes in a JPEG). */
export function overWhite(colour: Rgba): Rgba {
  const mix = (c: number) => Math.round(c * colour.alpha + 255 * (1 - colour.alpha));
  return { r: mix(colour.r), g: mix(colour.g), b: mix(colour.b), alpha: 1 };
}
