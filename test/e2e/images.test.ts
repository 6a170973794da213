import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { BLANK_POINT, BLOCKS, COLOUR, centre } from "../fixtures/pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { type Decoded, decodeRender, expectColour, readRender } from "../helpers/image.js";
import { forEachEngine, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });

  /** Checks every block of `/blocks` and a blank point, at `scale` image pixels per CSS pixel. */
  function expectBlocks(image: Decoded, { scale = 1, tolerance = 4 } = {}): void {
    for (const block of Object.values(BLOCKS)) {
      const { x, y } = centre(block);
      expectColour(image, x * scale, y * scale, block.colour, { tolerance });
    }
    expectColour(image, BLANK_POINT.x * scale, BLANK_POINT.y * scale, COLOUR.white, { tolerance });
  }

  describe("image formats", () => {
    // sharp reports AVIF as HEIF with AV1 compression.
    const cases = [
      { format: "png", sharpFormat: "png", tolerance: 0 },
      { format: "jpg", sharpFormat: "jpeg", tolerance: 24 },
      { format: "webp", sharpFormat: "webp", tolerance: 24 },
      { format: "avif", sharpFormat: "heif", tolerance: 24 },
    ];

    it.each(cases)(
      "$format: the default 1280×1024 viewport with the page's colours",
      async ({ format, sharpFormat, tolerance }) => {
        const result = await e2e.render("/blocks", { format });
        expect(result.format).toBe(format);
        const image = await decodeRender(result);
        expect(image.format).toBe(sharpFormat);
        if (format === "avif") expect(image.compression).toBe("av1");
        expect([image.width, image.height]).toEqual([1280, 1024]);
        expectBlocks(image, { tolerance });
      },
    );

    it("`jpeg` is accepted as a spelling of jpg", async () => {
      const result = await e2e.render("/blocks", { format: "jpeg", width: 400, height: 300 });
      expect(result.format).toBe("jpg");
      expect((await decodeRender(result)).format).toBe("jpeg");
    });
  });

  describe("viewport and scale", () => {
    it("custom width and height set the image size", async () => {
      const image = await decodeRender(await e2e.render("/blocks", { width: 800, height: 600 }));
      expect([image.width, image.height]).toEqual([800, 600]);
      expectColour(image, 500, 100, COLOUR.green);
    });

    it("device_scale_factor: 2 doubles the pixel dimensions", async () => {
      const image = await decodeRender(await e2e.render("/blocks", { device_scale_factor: 2, width: 640, height: 480 }));
      expect([image.width, image.height]).toEqual([1280, 960]);
      expectColour(image, centre(BLOCKS.green).x * 2, centre(BLOCKS.green).y * 2, COLOUR.green);
    });

    it("retina: true is device_scale_factor 2", async () => {
      const image = await decodeRender(await e2e.render("/blocks", { retina: true }));
      expect([image.width, image.height]).toEqual([2560, 2048]);
      expectBlocks(image, { scale: 2 });
    });
  });

  describe("capture area", () => {
    it("full_page captures the whole 3000px document", async () => {
      const image = await decodeRender(await e2e.render("/tall", { full_page: true }));
      expect([image.width, image.height]).toEqual([1280, 3000]);
      expectColour(image, 640, 50, COLOUR.green);
      expectColour(image, 640, 2950, COLOUR.magenta);
    });

    it("full_page with retina doubles the document size", async () => {
      const image = await decodeRender(await e2e.render("/tall", { full_page: true, retina: true, width: 400 }));
      expect([image.width, image.height]).toEqual([800, 6000]);
      expectColour(image, 400, 5900, COLOUR.magenta);
    });

    it("selector captures the element box times the scale factor", async () => {
      const card = BLOCKS.card;
      const one = await decodeRender(await e2e.render("/blocks", { selector: "#card" }));
      expect([one.width, one.height]).toEqual([card.width, card.height]);
      expectColour(one, card.width / 2, card.height / 2, card.colour);

      const two = await decodeRender(await e2e.render("/blocks", { selector: "#card", device_scale_factor: 2 }));
      expect([two.width, two.height]).toEqual([card.width * 2, card.height * 2]);
      expectColour(two, 2, 2, card.colour);
      expectColour(two, card.width * 2 - 3, card.height * 2 - 3, card.colour);
    });

    it("a missing selector falls back to the viewport", async () => {
      const image = await decodeRender(await e2e.render("/blocks", { selector: "#nowhere" }));
      expect([image.width, image.height]).toEqual([1280, 1024]);
      expectBlocks(image);
    });

    it("a missing selector with fail_if_selector_missing fails with EngineResponseNotOkError", async () => {
      const error = await expectRenderError(
        e2e.render("/blocks", { selector: "#nowhere", fail_if_selector_missing: true }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toContain("#nowhere");
    });
  });

  describe("encoding options", () => {
    it("quality changes the jpg size", async () => {
      const low = await readRender(await e2e.render("/blocks", { format: "jpg", quality: 10 }));
      const high = await readRender(await e2e.render("/blocks", { format: "jpg", quality: 95 }));
      expect(high.length).toBeGreaterThan(low.length * 2);
    });

    it("optimize_for_speed: the same png pixels in a larger file; jpg refuses it", async () => {
      const compact = await readRender(await e2e.render("/blocks"));
      const fast = await readRender(await e2e.render("/blocks", { optimize_for_speed: true }));
      expect(fast.length).toBeGreaterThan(compact.length);
      const pixels = (png: Buffer) => sharp(png).ensureAlpha().raw().toBuffer();
      expect(Buffer.compare(await pixels(compact), await pixels(fast))).toBe(0);
      const error = await expectRenderError(e2e.render("/blocks", { format: "jpg", optimize_for_speed: true }), "InvalidOptions");
      expect(error.message).toContain("optimize_for_speed");
    });

    it("transparent png keeps alpha where the page paints no background", async () => {
      const clear = await decodeRender(await e2e.render("/plain", { transparent: true }));
      expect(clear.hasAlpha).toBe(true);
      expectColour(clear, 50, 50, COLOUR.red);
      expect(clear.at(640, 512)[3]).toBe(0);

      const opaque = await decodeRender(await e2e.render("/plain"));
      expectColour(opaque, 640, 512, COLOUR.white);
    });

    it("transparent webp keeps alpha too", async () => {
      const image = await decodeRender(await e2e.render("/plain", { format: "webp", transparent: true }));
      expect(image.hasAlpha).toBe(true);
      expect(image.at(640, 512)[3]).toBe(0);
      expectColour(image, 50, 50, COLOUR.red, { tolerance: 24 });
    });

    it("thumb_width resizes keeping the aspect ratio", async () => {
      const result = await e2e.render("/blocks", { thumb_width: 320 });
      const image = await decodeRender(result);
      expect([image.width, image.height]).toEqual([320, 256]);
      expectBlocks(image, { scale: 0.25, tolerance: 8 });
    });
  });
});
