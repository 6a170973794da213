import { convertImage, imageSize, isFlatCapture, isFlatRange, mayBeFlat, openSections } from "@renderkit/format-image";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { densestFirst } from "../dist/blank.js";
import { distance, noisyScreenshot, pixels, type Rgba } from "./fixtures.js";

const COLOURS: Rgba[] = [
  [255, 0, 0, 255],
  [0, 160, 0, 255],
  [0, 0, 255, 255],
  [255, 0, 255, 255],
];

/** A solid PNG of `colour` (zlib level 9: as compact as Chromium's flat captures). */
function solid(width: number, height: number, [r, g, b]: Rgba): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Sections of 200 px width with the given heights, coloured in turn. */
function sections(heights: number[]): Promise<Buffer[]> {
  return Promise.all(heights.map((h, i) => solid(200, h, COLOURS[i % COLOURS.length] ?? [0, 0, 0, 255])));
}

describe("imageSize", () => {
  it("reads a PNG's size from its header, as sharp does, and other formats through sharp", async () => {
    for (const [width, height] of [
      [1, 1],
      [1280, 1024],
      [70_000, 3],
    ] as const) {
      const png = await sharp({ create: { width, height, channels: 4, background: "#fff" } })
        .png()
        .toBuffer();
      expect(await imageSize(png)).toEqual(
        await sharp(png, { limitInputPixels: false })
          .metadata()
          .then((m) => ({ width: m.width, height: m.height })),
      );
      expect(await imageSize(png)).toEqual({ width, height });
    }
    const jpeg = await sharp({ create: { width: 33, height: 44, channels: 3, background: "#000" } })
      .jpeg()
      .toBuffer();
    expect(await imageSize(jpeg)).toEqual({ width: 33, height: 44 });
    // A PNG cut short after its signature is no size: sharp refuses it.
    const png = await solid(10, 10, [0, 0, 0, 255]);
    await expect(imageSize(png.subarray(0, 20))).rejects.toThrow();
  });
});

describe("openSections / convertImage with sections", () => {
  it("stacks equal sections (the last shorter) in order, at their exact total height", async () => {
    const parts = await sections([1000, 1000, 1000, 300]);
    const opened = await openSections(parts);
    expect(opened.size).toEqual({ width: 200, height: 3300 });
    const out = await convertImage(parts, { format: "png", quality: 80, transparent: false });
    expect(out).toMatchObject({ width: 200, height: 3300, truncated: false });
    const at = await pixels(out.bytes);
    for (const [y, colour] of [
      [0, 0],
      [999, 0],
      [1000, 1],
      [1999, 1],
      [2000, 2],
      [3000, 3],
      [3299, 3],
    ] as const) {
      expect(distance(at(100, y), COLOURS[colour] as Rgba), `y ${y}`).toBe(0);
    }
  });

  it("stacks sections of unequal heights by compositing", async () => {
    const parts = await sections([700, 1001, 999, 50]);
    const out = await convertImage(parts, { format: "png", quality: 80, transparent: false });
    expect([out.width, out.height]).toEqual([200, 2750]);
    const at = await pixels(out.bytes);
    expect(distance(at(10, 699), COLOURS[0] as Rgba)).toBe(0);
    expect(distance(at(10, 700), COLOURS[1] as Rgba)).toBe(0);
    expect(distance(at(10, 1700), COLOURS[1] as Rgba)).toBe(0);
    expect(distance(at(10, 1701), COLOURS[2] as Rgba)).toBe(0);
    expect(distance(at(10, 2749), COLOURS[3] as Rgba)).toBe(0);
  });

  it("resizes a stitched image as a whole (thumbs) and cuts it at the encoder's limit", async () => {
    const parts = await sections([8000, 8000, 4000]);
    const thumb = await convertImage(parts, { format: "png", quality: 80, transparent: false, thumbWidth: 20 });
    expect([thumb.width, thumb.height]).toEqual([20, 2000]);
    const at = await pixels(thumb.bytes);
    expect(distance(at(10, 400), COLOURS[0] as Rgba)).toBeLessThanOrEqual(2);
    expect(distance(at(10, 1200), COLOURS[1] as Rgba)).toBeLessThanOrEqual(2);
    expect(distance(at(10, 1900), COLOURS[2] as Rgba)).toBeLessThanOrEqual(2);
    const webp = await convertImage(parts, { format: "webp", quality: 80, transparent: false });
    expect(webp).toMatchObject({ width: 200, height: 16_383, truncated: true });
    expect(await imageSize(webp.bytes)).toEqual({ width: 200, height: 16_383 });
  });

  it("refuses sections of different widths", async () => {
    const parts = [await solid(200, 100, [0, 0, 0, 255]), await solid(201, 100, [0, 0, 0, 255])];
    await expect(openSections(parts)).rejects.toThrow(/width/);
  });
});

describe("flat capture check", () => {
  const capture = (bytes: Buffer[], heights: number[], width = 200) => ({
    sections: bytes.map((b, i) => ({ bytes: b, top: 0, height: heights[i] ?? 0 })),
    width,
    deviceScaleFactor: 1,
  });

  it("a single colour, in one or several sections, is flat; two colours are not", async () => {
    const white = await solid(200, 500, [255, 255, 255, 255]);
    expect(await isFlatCapture(capture([white], [500]))).toBe(true);
    expect(await isFlatCapture(capture([white, white], [500, 500]))).toBe(true);
    const red = await solid(200, 500, [255, 0, 0, 255]);
    expect(await isFlatCapture(capture([white, red], [500, 500]))).toBe(false);
  });

  it("large sections (read a channel at a time) are flat or not alike", async () => {
    const big = await solid(1280, 9000, [10, 20, 30, 255]);
    expect(await isFlatCapture(capture([big], [9000], 1280))).toBe(true);
    const other = await solid(1280, 9000, [10, 20, 40, 255]);
    expect(await isFlatCapture(capture([big, other], [9000, 9000], 1280))).toBe(false);
    // One dot off in the last channel only, near the bottom.
    const dot = await sharp(big)
      .composite([{ input: await solid(1, 1, [10, 20, 35, 255]), left: 700, top: 8990 }])
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(await isFlatCapture(capture([big, dot], [9000, 9000], 1280))).toBe(false);
  });

  it("sections above 32 M pixels (checked with sharp's stats, which streams) are flat or not alike", async () => {
    const huge = await solid(4100, 8200, [200, 200, 200, 255]);
    expect(await isFlatCapture(capture([huge], [8200], 4100))).toBe(true);
    const dot = await sharp(huge)
      .composite([{ input: await solid(2, 2, [200, 200, 190, 255]), left: 4000, top: 8100 }])
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(await isFlatCapture(capture([dot], [8200], 4100))).toBe(false);
  });

  it("decodes the section with the most bytes per row first: the one most likely to have content", () => {
    const section = (bytes: number, height: number) => ({ bytes: new Uint8Array(bytes), height, top: 0 });
    const [top, middle, last] = [section(4000, 8192), section(4000, 8192), section(3000, 1000)];
    expect(densestFirst([top, middle, last])).toEqual([last, top, middle]);
    expect(densestFirst([section(10, 10), section(10, 1)]).map((s) => s.height)).toEqual([1, 10]);
  });

  it("one dot of another colour is enough to not be flat", async () => {
    const dot = await sharp({ create: { width: 200, height: 500, channels: 3, background: "#ffffff" } })
      .composite([{ input: await solid(1, 1, [250, 0, 0, 255]), left: 120, top: 333 }])
      .png()
      .toBuffer();
    expect(await isFlatCapture(capture([dot], [500]))).toBe(false);
  });

  it("a detailed image is ruled out by its size, without decoding", async () => {
    const noisy = await noisyScreenshot(640, 400);
    expect(mayBeFlat(noisy, 640 * 400)).toBe(false);
    expect(await isFlatCapture(capture([noisy], [400], 640))).toBe(false);
  });

  it("tolerates a few levels of difference per channel", () => {
    expect(isFlatRange({ min: [250, 250, 250], max: [253, 253, 253] })).toBe(true);
    expect(isFlatRange({ min: [250, 250, 250], max: [254, 253, 253] })).toBe(false);
  });
});
