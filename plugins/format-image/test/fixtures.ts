import sharp from "sharp";

export type Rgba = [number, number, number, number];

export const RED = { r: 255, g: 0, b: 0, alpha: 1 };
export const BLUE = { r: 0, g: 0, b: 255, alpha: 1 };
export const GREEN = { r: 0, g: 160, b: 0, alpha: 1 };
export const MAGENTA = { r: 255, g: 0, b: 255, alpha: 1 };

function square(width: number, height: number, colour: typeof RED): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: colour } })
    .png()
    .toBuffer();
}

/** 1280×800 white, a red 200×200 square at (100,100), a blue 200×180 block at (1000,600). */
export async function opaqueScreenshot(): Promise<Buffer> {
  return sharp({ create: { width: 1280, height: 800, channels: 3, background: "#ffffff" } })
    .composite([
      { input: await square(200, 200, RED), left: 100, top: 100 },
      { input: await square(200, 180, BLUE), left: 1000, top: 600 },
    ])
    .png()
    .toBuffer();
}

/** 1280×800 fully transparent, with the same opaque red square at (100,100). */
export async function transparentScreenshot(): Promise<Buffer> {
  return sharp({ create: { width: 1280, height: 800, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: await square(200, 200, RED), left: 100, top: 100 }])
    .png()
    .toBuffer();
}

/** A 1280×4000 full-page capture: a green band on top (0..200), a magenta band at the bottom. */
export async function tallScreenshot(): Promise<Buffer> {
  return sharp({ create: { width: 1280, height: 4000, channels: 3, background: "#ffffff" } })
    .composite([
      { input: await square(1280, 200, GREEN), left: 0, top: 0 },
      { input: await square(1280, 200, MAGENTA), left: 0, top: 3800 },
    ])
    .png()
    .toBuffer();
}

/** Deterministic noise (a detailed image, so that quality changes the encoded size). */
export function noisyScreenshot(width = 640, height = 400): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 42;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    // Smooth gradient plus noise, closer to a photo than pure noise.
    pixels[i] = ((i / 3) % width) / 3 + ((seed >>> 24) % 96);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Decodes any image and returns a reader of RGBA pixels (alpha 255 for opaque formats). */
export async function pixels(bytes: Uint8Array): Promise<(x: number, y: number) => Rgba> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return (x, y) => {
    const at = (y * info.width + x) * 4;
    return [data[at]!, data[at + 1]!, data[at + 2]!, data[at + 3]!];
  };
}

/** Largest per-channel difference between two colours. */
export function distance(a: Rgba, b: Rgba): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
}
