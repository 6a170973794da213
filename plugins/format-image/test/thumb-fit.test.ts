import { describe, expect, it } from "vitest";
import { expectColour } from "../../../test/helpers/image.js";
import { forEachEngine } from "../../../test/helpers/setup.js";
import { BLACK, BLUE, RED } from "./site.js";
import { useSite } from "./use-site.js";

/**
 * Thumbnail shaping on both engines, on `/halves` (left half red, right half blue) at 800×400:
 * img_fit, img_position, img_bg, img_pad and force_dpr, checked by output size and pixels.
 */
forEachEngine((engine) => {
  const rk = useSite(engine);
  const VIEW = { width: 800, height: 400 };
  const BOX = { ...VIEW, thumb_width: 200, thumb_height: 200 };

  describe("img_fit", () => {
    it("cover (default) crops to the box, centred horizontally; fill stretches", async () => {
      for (const fit of [undefined, "cover", "fill"]) {
        const image = await rk.image("/halves", { ...BOX, ...(fit ? { img_fit: fit } : {}) });
        expect([image.width, image.height], String(fit)).toEqual([200, 200]);
        expectColour(image, 20, 100, RED);
        expectColour(image, 180, 100, BLUE);
      }
    });

    it("contain letterboxes with black, or img_bg; img_position moves the image in the box", async () => {
      const black = await rk.image("/halves", { ...BOX, img_fit: "contain" });
      expect([black.width, black.height]).toEqual([200, 200]);
      expectColour(black, 100, 20, BLACK); // 800×400 becomes 200×100, centred: rows 50..149
      expectColour(black, 20, 100, RED);
      expectColour(black, 100, 180, BLACK);
      const top = await rk.image("/halves", { ...BOX, img_fit: "contain", img_bg: "#00a000", img_position: "top" });
      expectColour(top, 20, 20, RED);
      expectColour(top, 180, 90, BLUE);
      expectColour(top, 100, 150, [0, 160, 0]);
    });

    it("inside and outside keep the aspect ratio: the output is smaller or larger than the box", async () => {
      const inside = await rk.image("/halves", { ...BOX, img_fit: "inside", format: "webp" });
      expect([inside.width, inside.height]).toEqual([200, 100]);
      const outside = await rk.image("/halves", { ...BOX, img_fit: "outside" });
      expect([outside.width, outside.height]).toEqual([400, 200]);
      expectColour(outside, 100, 100, RED);
      expectColour(outside, 300, 100, BLUE);
    });

    it("img_position chooses the part a cover keeps: left keeps red, east keeps blue", async () => {
      const left = await rk.image("/halves", { ...BOX, img_position: "left" });
      for (const x of [5, 100, 195]) expectColour(left, x, 100, RED);
      const east = await rk.image("/halves", { ...BOX, img_fit: "cover", img_position: "east" });
      for (const x of [5, 100, 195]) expectColour(east, x, 100, BLUE);
    });
  });

  describe("img_pad", () => {
    it("adds padding of each side around the output in img_bg, default black", async () => {
      const image = await rk.image("/halves", { ...BOX, img_pad: "10,20,30,40", img_bg: "rgb(0,160,0)" });
      expect([image.width, image.height]).toEqual([200 + 20 + 40, 200 + 10 + 30]);
      expectColour(image, 5, 100, [0, 160, 0]); // left padding
      expectColour(image, 100, 5, [0, 160, 0]); // top padding
      expectColour(image, 40 + 20, 10 + 100, RED);
      expectColour(image, 40 + 180, 10 + 100, BLUE);
      const plain = await rk.image("/halves", { ...VIEW, img_pad: 8, format: "jpg" });
      expect([plain.width, plain.height]).toEqual([816, 416]);
      expectColour(plain, 3, 3, BLACK, { tolerance: 24 });
      expectColour(plain, 100, 100, RED, { tolerance: 24 });
    });
  });

  describe("force_dpr", () => {
    it("reads thumb sizes and padding as CSS px at the device scale factor", async () => {
      const thumb = { ...VIEW, retina: true, thumb_width: 200 };
      const plain = await rk.image("/halves", thumb);
      expect([plain.width, plain.height]).toEqual([200, 100]);
      const forced = await rk.image("/halves", { ...thumb, force_dpr: true, img_pad: 5 });
      expect([forced.width, forced.height]).toEqual([400 + 20, 200 + 20]);
      expectColour(forced, 4, 4, BLACK);
      expectColour(forced, 10 + 50, 10 + 100, RED);
      expectColour(forced, 10 + 350, 10 + 100, BLUE);
    });
  });
});
