import { describe, expect, it } from "vitest";
import { NATIVE_MAX_PIXELS } from "../../../core/dist/page/capture-limits.js";
import { expectColour } from "../../../test/helpers/image.js";
import { forEachEngine } from "../../../test/helpers/setup.js";
import { BLUE, centre, GREEN, MAGENTA, TALL, WHITE } from "./site.js";
import { useSite } from "./use-site.js";

/** full_page_mode on both engines, on a 20,000 px page: native stops at 16,384 px, stitch does not. */
forEachEngine((engine) => {
  const rk = useSite(engine);
  const PAGE = { width: 400, height: 600, full_page: true };

  describe("full_page_mode", () => {
    it("stitch (default) captures all 20,000 px in sections", async () => {
      for (const mode of [undefined, "stitch"]) {
        const image = await rk.image("/tall", { ...PAGE, ...(mode ? { full_page_mode: mode } : {}) });
        expect([image.width, image.height], String(mode)).toEqual([400, 20_000]);
        expect(image.result.truncated).toBe(false);
        expectColour(image, 200, centre(TALL.top).y, GREEN);
        expectColour(image, 200, centre(TALL.past).y, MAGENTA);
        expectColour(image, 200, centre(TALL.end).y, BLUE);
      }
    });

    it("native is one capture cut at 16,384 device px, and says truncated", async () => {
      const image = await rk.image("/tall", { ...PAGE, full_page_mode: "native" });
      expect([image.width, image.height]).toEqual([400, NATIVE_MAX_PIXELS]);
      expect(image.result.truncated).toBe(true);
      expectColour(image, 200, centre(TALL.top).y, GREEN);
      expectColour(image, 200, NATIVE_MAX_PIXELS - 1, WHITE);
    });

    it("native at retina cuts at 8,192 CSS px; a page within the cap is whole either way", async () => {
      const retina = await rk.image("/tall", { ...PAGE, full_page_mode: "native", retina: true, clip: "0,0,400,9000" });
      expect([retina.width, retina.height]).toEqual([800, NATIVE_MAX_PIXELS]);
      expect(retina.result.truncated).toBe(true);
      const short = await rk.image("/tall", { width: 400, height: 600, clip: "0,16950,400,200", full_page_mode: "native" });
      expect([short.width, short.height]).toEqual([400, 200]);
      expectColour(short, 200, 100, MAGENTA);
    });
  });
});
