import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { RenderResult } from "@renderkit/core";
import sharp from "sharp";
import { expect } from "vitest";

/** The bytes of a finished render, read from its `renderUrl` (a file:// address with fs storage). */
export function readRender(result: RenderResult): Promise<Buffer> {
  return readFile(fileURLToPath(result.renderUrl));
}

/** A decoded image: RGBA pixels (alpha 255 for opaque formats) plus sharp's metadata. */
export interface Decoded {
  format: string | undefined;
  compression: string | undefined;
  width: number;
  height: number;
  hasAlpha: boolean;
  /** [r, g, b, a] at (x, y), in image pixels. */
  at(x: number, y: number): [number, number, number, number];
}

/** Decodes any image sharp reads. */
export async function decode(bytes: Uint8Array): Promise<Decoded> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    format: meta.format,
    compression: meta.compression,
    width: info.width,
    height: info.height,
    hasAlpha: meta.hasAlpha,
    at(x, y) {
      if (x < 0 || y < 0 || x >= info.width || y >= info.height) throw new RangeError(`(${x},${y}) is outside the image`);
      const i = (Math.floor(y) * info.width + Math.floor(x)) * 4;
      return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0, data[i + 3] ?? 0];
    },
  };
}

/** Reads and decodes a render. */
export async function decodeRender(result: RenderResult): Promise<Decoded> {
  return decode(await readRender(result));
}

/**
 * Asserts the colour at (x, y), in image pixels, within `tolerance` per channel (lossy formats
 * need some). Alpha must be opaque unless `alpha` is given.
 */
export function expectColour(
  image: Decoded,
  x: number,
  y: number,
  rgb: readonly [number, number, number],
  { tolerance = 4, alpha = 255 }: { tolerance?: number; alpha?: number } = {},
): void {
  const actual = image.at(x, y);
  const expected = [...rgb, alpha];
  const off = Math.max(...actual.map((v, i) => Math.abs(v - (expected[i] ?? 0))));
  expect(off, `pixel (${x},${y}) is rgba(${actual.join(",")}), expected rgba(${expected.join(",")})`).toBeLessThanOrEqual(
    tolerance,
  );
}
