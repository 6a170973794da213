import { STRIP_BAND } from "@renderkit/format-image";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { type Decoded, expectColour, readRender } from "../../../test/helpers/image.js";
import { forEachEngine } from "../../../test/helpers/setup.js";
import { RED, WHITE } from "./site.js";
import { useSite } from "./use-site.js";

const BAND = [STRIP_BAND.r, STRIP_BAND.g, STRIP_BAND.b] as const;

/** Pixels of the strip that are not the band colour (the text), counted over rows 0..height. */
function textPixels(image: Decoded, height: number): number {
  let count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.at(x, y);
      if (Math.abs(r - BAND[0]) + Math.abs(g - BAND[1]) + Math.abs(b - BAND[2]) > 60) count++;
    }
  }
  return count;
}

/** show_timestamp / show_url on both engines, and metadata on an image render. */
forEachEngine((engine) => {
  const rk = useSite(engine);
  const VIEW = { width: 800, height: 600 };

  describe("header strip", () => {
    it("show_timestamp adds a 32 px band with text above the page; the page starts below it", async () => {
      const image = await rk.image("/shapes", { ...VIEW, show_timestamp: true });
      expect([image.width, image.height]).toEqual([800, 632]);
      expectColour(image, 795, 2, BAND); // the band, not the page's white or red
      expectColour(image, 2, 2, BAND);
      expect(textPixels(image, 32)).toBeGreaterThan(50);
      expectColour(image, 50, 32 + 50, RED); // the page's red block, moved down by the strip
      expectColour(image, 50, 32 + 1, RED);
      expectColour(image, 400, 32 + 500, WHITE);
    });

    it("show_url adds the address to the strip: more text; retina doubles the strip", async () => {
      const time = await rk.image("/shapes", { ...VIEW, show_timestamp: true });
      const both = await rk.image("/shapes", { ...VIEW, show_timestamp: true, show_url: true });
      expect(textPixels(both, 32)).toBeGreaterThan(textPixels(time, 32) * 1.5);
      const retina = await rk.image("/shapes", { ...VIEW, show_url: true, retina: true, format: "webp" });
      expect([retina.width, retina.height]).toEqual([1600, 1264]);
      expectColour(retina, 1590, 4, BAND, { tolerance: 24 });
      expectColour(retina, 100, 64 + 100, RED, { tolerance: 24 });
    });

    it("the strip sits above thumbs and padding: the output grows by it", async () => {
      const image = await rk.image("/shapes", { ...VIEW, show_url: true, thumb_width: 400, img_pad: 10 });
      expect([image.width, image.height]).toEqual([420, 32 + 10 + 300 + 10]);
      expectColour(image, 415, 2, BAND);
      expectColour(image, 415, 32 + 5, [0, 0, 0]);
      // The strip's text is real: its pixels differ from a plain band of the same size.
      const strip = await sharp(await readRender(image.result))
        .extract({ left: 0, top: 0, width: 420, height: 32 })
        .stats();
      expect(strip.channels[0]?.max).toBeGreaterThan(200);
    });
  });

  describe("metadata", () => {
    it("metadata: true on an image render adds the page's metadata to the result", async () => {
      const result = await rk.render("/shapes", { ...VIEW, format: "webp", metadata: true });
      expect(result.format).toBe("webp");
      expect(result.metadata).toMatchObject({ title: "shaping", urlResolved: rk.site.url("/shapes") });
    });
  });
});
