import { describe, expect, it } from "vitest";
import { expectColour } from "../../../test/helpers/image.js";
import { forEachEngine } from "../../../test/helpers/setup.js";
import { BLUE, centre, GREEN, MAGENTA, RED, SHAPES, WHITE, YELLOW } from "./site.js";
import { useSite } from "./use-site.js";

/** Image shaping on both engines: what is captured (clip, widths) and what is behind it (bg_color). */
forEachEngine((engine) => {
  const rk = useSite(engine);
  const VIEW = { width: 800, height: 600 };

  describe("clip", () => {
    it("captures exactly the rectangle, in document coordinates, also below the fold", async () => {
      const blue = await rk.image("/shapes", { ...VIEW, clip: "200,300,100,50" });
      expect([blue.width, blue.height]).toEqual([100, 50]);
      for (const [x, y] of [
        [0, 0],
        [99, 49],
        [50, 25],
      ] as const)
        expectColour(blue, x, y, BLUE);

      const below = await rk.image("/shapes", { ...VIEW, clip: "50,1500,200,100", format: "webp" });
      expect([below.width, below.height]).toEqual([200, 100]);
      expectColour(below, 100, 50, GREEN, { tolerance: 24 });
    });

    it("straddling blocks: each corner shows what the page has there; retina doubles the pixels", async () => {
      const image = await rk.image("/shapes", { ...VIEW, clip: "150,250,200,150", retina: true });
      expect([image.width, image.height]).toEqual([400, 300]);
      expectColour(image, 10, 10, WHITE); // (155,255): empty page
      expectColour(image, 2 * 75, 2 * 75, BLUE); // (225,325): the blue block
      expect(image.result).toMatchObject({ width: 400, height: 300, truncated: false });
    });
  });

  describe("full_width and max_width", () => {
    it("full_width widens a full page to the document's scroll width", async () => {
      const narrow = await rk.image("/shapes", { ...VIEW, full_page: true });
      expect([narrow.width, narrow.height]).toEqual([800, 2000]);
      const wide = await rk.image("/shapes", { ...VIEW, full_page: true, full_width: true });
      expect([wide.width, wide.height]).toEqual([1300, 2000]);
      expectColour(wide, centre(SHAPES.overflow).x, centre(SHAPES.overflow).y, MAGENTA);
      expectColour(wide, centre(SHAPES.green).x, centre(SHAPES.green).y, GREEN);
    });

    it("max_width cuts a viewport capture on the right, in CSS px times the scale factor", async () => {
      const image = await rk.image("/shapes", { ...VIEW, max_width: 150 });
      expect([image.width, image.height]).toEqual([150, 600]);
      expectColour(image, 50, 50, RED);
      expectColour(image, 140, 50, WHITE);
      const retina = await rk.image("/shapes", { ...VIEW, max_width: 150, retina: true, format: "jpg" });
      expect([retina.width, retina.height]).toEqual([300, 1200]);
      expectColour(retina, 100, 100, RED, { tolerance: 24 });
    });

    it("crop_width is max_width: it cuts full pages too, and a wide page capped stays wide no more", async () => {
      const image = await rk.image("/shapes", { ...VIEW, full_page: true, full_width: true, crop_width: 250 });
      expect([image.width, image.height]).toEqual([250, 2000]);
      expectColour(image, centre(SHAPES.green).x, centre(SHAPES.green).y, GREEN);
      expect(image.result.truncated).toBe(false);
      const wider = await rk.image("/shapes", { ...VIEW, max_width: 2000 });
      expect([wider.width, wider.height]).toEqual([800, 600]);
    });
  });

  describe("bg_color", () => {
    it("paints where the page sets no background; the page's own pixels are kept", async () => {
      const image = await rk.image("/shapes", { ...VIEW, bg_color: "#00a000" });
      expect([image.width, image.height]).toEqual([800, 600]);
      expectColour(image, 400, 500, GREEN);
      expectColour(image, 50, 50, RED);
      expectColour(image, centre(SHAPES.blue).x, centre(SHAPES.blue).y, BLUE);
      expect(image.hasAlpha).toBe(false);
    });

    it("does not cover a page's own background", async () => {
      const image = await rk.image("/yellow", { ...VIEW, bg_color: "blue" });
      expectColour(image, 400, 500, YELLOW);
    });

    it("fills transparent areas of transparent png and jpg alike; a translucent colour keeps its alpha", async () => {
      const png = await rk.image("/shapes", { ...VIEW, transparent: true, bg_color: "rgb(0,160,0)" });
      expectColour(png, 400, 500, GREEN);
      const jpg = await rk.image("/shapes", { ...VIEW, format: "jpg", bg_color: "magenta" });
      expectColour(jpg, 400, 500, MAGENTA, { tolerance: 24 });
      const half = await rk.image("/shapes", { ...VIEW, bg_color: "rgba(0,0,255,0.5)" });
      expect(half.hasAlpha).toBe(true);
      expectColour(half, 400, 500, BLUE, { alpha: 128, tolerance: 2 });
      expectColour(half, 50, 50, RED);
      // In a JPEG the translucent colour is painted over white.
      const halfJpg = await rk.image("/shapes", { ...VIEW, format: "jpg", bg_color: "rgba(0,0,255,0.5)" });
      expectColour(halfJpg, 400, 500, [127, 127, 255], { tolerance: 24 });
    });
  });
});
