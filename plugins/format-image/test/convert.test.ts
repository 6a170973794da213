import {
  type ConvertOptions,
  convertImage,
  directCaptureType,
  IMAGE_FORMATS,
  type ImageFormat,
  imageSize,
  isImageFormat,
} from "@renderkit/format-image";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import {
  distance,
  noisyScreenshot,
  opaqueScreenshot,
  pixels,
  type Rgba,
  tallScreenshot,
  transparentScreenshot,
} from "./fixtures.js";

const red: Rgba = [255, 0, 0, 255];
const blue: Rgba = [0, 0, 255, 255];
const white: Rgba = [255, 255, 255, 255];
const green: Rgba = [0, 160, 0, 255];
const clear: Rgba = [0, 0, 0, 0];

/** sharp's name for each container (AVIF is read as HEIF with AV1 compression). */
const CONTAINER: Record<ImageFormat, string> = { png: "png", jpg: "jpeg", webp: "webp", avif: "heif" };
/** Largest per-channel error allowed at quality 80, away from edges. */
const TOLERANCE: Record<ImageFormat, number> = { png: 0, jpg: 12, webp: 12, avif: 12 };
const FORMATS: ImageFormat[] = ["png", "jpg", "webp", "avif"];

const base = (format: ImageFormat, extra: Partial<ConvertOptions> = {}): ConvertOptions => ({
  format,
  quality: 80,
  transparent: false,
  ...extra,
});

let opaque: Buffer;
let transparent: Buffer;
beforeAll(async () => {
  opaque = await opaqueScreenshot();
  transparent = await transparentScreenshot();
});

describe.each(FORMATS)("convertImage to %s", (format) => {
  it("encodes the format at the capture's size, colours intact", async () => {
    const out = await convertImage(opaque, base(format));
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe(CONTAINER[format]);
    if (format === "avif") expect(meta.compression).toBe("av1");
    expect([meta.width, meta.height]).toEqual([1280, 800]);
    expect(out).toMatchObject({ width: 1280, height: 800, truncated: false });
    expect(meta.hasAlpha).toBe(false);
    const at = await pixels(out.bytes);
    expect(distance(at(200, 200), red)).toBeLessThanOrEqual(TOLERANCE[format]);
    expect(distance(at(1100, 690), blue)).toBeLessThanOrEqual(TOLERANCE[format]);
    expect(distance(at(640, 400), white)).toBeLessThanOrEqual(TOLERANCE[format]);
    expect(distance(at(5, 5), white)).toBeLessThanOrEqual(TOLERANCE[format]);
  });

  it("scales to thumb_width keeping the aspect ratio", async () => {
    const out = await convertImage(opaque, base(format, { thumbWidth: 640 }));
    expect(await sharp(out.bytes).metadata()).toMatchObject({ width: 640, height: 400 });
    expect(out).toMatchObject({ width: 640, height: 400 });
    const at = await pixels(out.bytes);
    expect(distance(at(100, 100), red)).toBeLessThanOrEqual(TOLERANCE[format] + 4);
    expect(distance(at(550, 345), blue)).toBeLessThanOrEqual(TOLERANCE[format] + 4);
  });

  it("scales to thumb_height keeping the aspect ratio", async () => {
    const out = await convertImage(opaque, base(format, { thumbHeight: 200 }));
    expect(await sharp(out.bytes).metadata()).toMatchObject({ width: 320, height: 200 });
  });

  it("crops to exactly thumb_width × thumb_height", async () => {
    const out = await convertImage(opaque, base(format, { thumbWidth: 300, thumbHeight: 250 }));
    expect(await sharp(out.bytes).metadata()).toMatchObject({ width: 300, height: 250 });
    expect(out).toMatchObject({ width: 300, height: 250 });
  });
});

describe("thumbs", () => {
  it("anchors a cover crop at the top of a tall page", async () => {
    const out = await convertImage(await tallScreenshot(), base("png", { thumbWidth: 400, thumbHeight: 300 }));
    expect(out).toMatchObject({ width: 400, height: 300 });
    const at = await pixels(out.bytes);
    // 1280×4000 scaled by 0.3125 to 400×1250, top 300 rows kept: the green band (0..62) and white below.
    expect(distance(at(200, 20), green)).toBeLessThanOrEqual(2);
    expect(distance(at(200, 290), white)).toBeLessThanOrEqual(2);
  });

  it("does not enlarge with one side, enlarges to an exact box with both", async () => {
    const one = await convertImage(opaque, base("webp", { thumbWidth: 2560 }));
    expect(one).toMatchObject({ width: 1280, height: 800 });
    const both = await convertImage(opaque, base("jpg", { thumbWidth: 1600, thumbHeight: 1000 }));
    expect(await sharp(both.bytes).metadata()).toMatchObject({ width: 1600, height: 1000 });
  });
});

describe("transparency", () => {
  it.each(["png", "webp", "avif"] as const)("keeps alpha in %s when transparent", async (format) => {
    const out = await convertImage(transparent, base(format, { transparent: true }));
    expect((await sharp(out.bytes).metadata()).hasAlpha).toBe(true);
    const at = await pixels(out.bytes);
    expect(at(10, 10)[3]).toBe(0);
    expect(at(640, 400)[3]).toBe(0);
    expect(distance(at(200, 200), red)).toBeLessThanOrEqual(TOLERANCE[format]);
    if (format === "png") expect(at(10, 10)).toEqual(clear);
  });

  it("keeps alpha through a thumb resize", async () => {
    const out = await convertImage(transparent, base("webp", { transparent: true, thumbWidth: 320 }));
    const at = await pixels(out.bytes);
    expect(out).toMatchObject({ width: 320, height: 200 });
    expect(at(5, 5)[3]).toBe(0);
    expect(distance(at(50, 50), red)).toBeLessThanOrEqual(TOLERANCE.webp);
  });

  it("flattens jpg onto white even when transparent is asked", async () => {
    const out = await convertImage(transparent, base("jpg", { transparent: true }));
    const meta = await sharp(out.bytes).metadata();
    expect(meta.hasAlpha).toBe(false);
    expect(meta.channels).toBe(3);
    const at = await pixels(out.bytes);
    expect(distance(at(10, 10), white)).toBeLessThanOrEqual(TOLERANCE.jpg);
    expect(distance(at(200, 200), red)).toBeLessThanOrEqual(TOLERANCE.jpg);
  });

  it.each(["png", "webp", "avif"] as const)("flattens %s onto white when not transparent", async (format) => {
    const out = await convertImage(transparent, base(format));
    expect((await sharp(out.bytes).metadata()).hasAlpha).toBe(false);
    expect(distance((await pixels(out.bytes))(640, 400), white)).toBeLessThanOrEqual(TOLERANCE[format]);
  });
});

describe("quality", () => {
  it.each(["jpg", "webp", "avif"] as const)("a lower quality gives a smaller %s", async (format) => {
    const input = await noisyScreenshot();
    const low = await convertImage(input, base(format, { quality: 20 }));
    const high = await convertImage(input, base(format, { quality: 95 }));
    expect(low.bytes.length).toBeLessThan(high.bytes.length * 0.7);
  });
});

describe("encoder limits", () => {
  it("cuts WebP at 16383 px and reports truncated; JPEG keeps the full height", async () => {
    const tall = await sharp({ create: { width: 200, height: 16_384, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const webp = await convertImage(tall, base("webp"));
    expect(webp).toMatchObject({ width: 200, height: 16_383, truncated: true });
    expect(await sharp(webp.bytes).metadata()).toMatchObject({ width: 200, height: 16_383 });
    const jpg = await convertImage(tall, base("jpg"));
    expect(jpg).toMatchObject({ width: 200, height: 16_384, truncated: false });
  });
});

describe("formats", () => {
  it("declares the four formats with their content types, each needing only a screenshot", () => {
    expect(IMAGE_FORMATS.map((f) => [f.format, f.contentType, f.extension])).toEqual([
      ["png", "image/png", "png"],
      ["jpg", "image/jpeg", "jpg"],
      ["webp", "image/webp", "webp"],
      ["avif", "image/avif", "avif"],
    ]);
    for (const spec of IMAGE_FORMATS) expect(spec.requires).toEqual(["screenshot"]);
    expect(FORMATS.every(isImageFormat)).toBe(true);
    expect(["pdf", "jpeg", "toString", "constructor"].some(isImageFormat)).toBe(false);
  });
});

describe("fast paths", () => {
  it("returns png and jpg from the engine unless a thumb is asked", () => {
    const plain = { quality: 80, transparent: false };
    expect(directCaptureType("png", plain)).toBe("png");
    expect(directCaptureType("png", { ...plain, transparent: true })).toBe("png");
    expect(directCaptureType("jpg", plain)).toBe("jpeg");
    expect(directCaptureType("webp", plain)).toBeUndefined();
    expect(directCaptureType("avif", plain)).toBeUndefined();
    expect(directCaptureType("png", { ...plain, thumbWidth: 100 })).toBeUndefined();
    expect(directCaptureType("jpg", { ...plain, thumbHeight: 100 })).toBeUndefined();
  });

  it("reads the size of an engine image from its header", async () => {
    expect(await imageSize(opaque)).toEqual({ width: 1280, height: 800 });
    const jpeg = await sharp(opaque).resize(321).jpeg().toBuffer();
    expect(await imageSize(jpeg)).toEqual({ width: 321, height: 201 });
  });
});
