import { describe, expect, it } from "vitest";
import { expectRenderError } from "../../../test/helpers/errors.js";
import { forEachEngine, onOneEngine } from "../../../test/helpers/setup.js";
import { useSite } from "./use-site.js";

/** Bad values and combinations of the image shaping options: 400 `InvalidOptions` naming the option. */
forEachEngine((engine) => {
  const rk = useSite(engine);
  const once = onOneEngine(engine);
  const html = "<p>x</p>";

  /** Cases refused when the request is parsed, before any page opens. */
  const REFUSED: [string, Record<string, unknown>][] = [
    ["clip", { clip: "0,0,0,10" }],
    ["clip", { clip: "10,10,100" }],
    ["clip", { clip: "a,b,c,d" }],
    ["clip", { clip: "-5,0,10,10" }],
    ["clip", { clip: "0,0,10,10", selector: "p" }],
    ["clip", { clip: "0,0,10,10", format: "pdf" }],
    ["full_width", { full_width: true }],
    ["full_width", { full_width: true, full_page: true, selector: "p" }],
    ["max_width", { max_width: 0 }],
    ["max_width", { crop_width: 100, format: "pdf" }],
    ["bg_color", { bg_color: "nope" }],
    ["bg_color", { bg_color: "#12345" }],
    ["bg_color", { bg_color: "red", format: "pdf" }],
    ["img_bg", { img_bg: "blue" }],
    ["img_bg", { img_bg: "blue", thumb_width: 9, thumb_height: 9, img_fit: "cover" }],
    ["img_bg", { img_bg: "not a colour", img_pad: 4 }],
    ["img_fit", { img_fit: "contain" }],
    ["img_fit", { img_fit: "contain", thumb_width: 100 }],
    ["img_fit", { img_fit: "squash", thumb_width: 100, thumb_height: 100 }],
    ["img_position", { img_position: "top", thumb_width: 100 }],
    ["img_position", { img_position: "left", img_fit: "fill", thumb_width: 100, thumb_height: 100 }],
    ["img_position", { img_position: "attention", img_fit: "contain", thumb_width: 100, thumb_height: 100 }],
    ["img_pad", { img_pad: "1,2,3,4,5" }],
    ["img_pad", { img_pad: "3000" }],
    ["img_pad", { img_pad: "1.5" }],
    ["force_dpr", { force_dpr: true, retina: true }],
    ["force_dpr", { force_dpr: true, thumb_width: 100 }],
    ["full_page_mode", { full_page_mode: "native" }],
    ["full_page_mode", { full_page_mode: "native", full_page: true, format: "pdf" }],
    ["full_page_mode", { full_page_mode: "sideways", full_page: true }],
    ["show_timestamp", { show_timestamp: true, format: "pdf" }],
    ["show_url", { show_url: true }],
  ];

  describe("refused when parsed", () => {
    once("every bad value or combination is a 400 naming its option", async () => {
      for (const [option, options] of REFUSED) {
        const parsing = Promise.resolve().then(() => rk.renderer.parse({ html, ...options }));
        const error = await expectRenderError(parsing, "InvalidOptions").catch((e: Error) => {
          throw new Error(`${JSON.stringify(options)}: ${e.message}`);
        });
        expect(error.details?.option, JSON.stringify(options)).toBe(option);
      }
    });

    once("the same options in camelCase and in accepted combinations pass parsing", () => {
      const ok = [
        { bgColor: "rgba(0,0,0,0.5)", imgPad: "1,2", imgBg: "hsl(120,100%,50%)" },
        { clip: "0, 0, 10.5, 10", fullPageMode: "native" },
        { thumbWidth: 50, thumbHeight: 50, imgFit: "cover", imgPosition: "top right" },
        { thumb_width: 50, force_dpr: true, dpr: 2 },
        { full_page: true, full_width: true, crop_width: 300 },
      ];
      for (const options of ok) expect(() => rk.renderer.parse({ html, ...options }), JSON.stringify(options)).not.toThrow();
      expect(rk.renderer.parse({ html, img_position: "top right", thumb_width: 5, thumb_height: 5 }).options.imgPosition).toBe(
        "right top",
      );
    });
  });

  describe("refused when rendered", () => {
    it("a clip reaching beyond the page is a 400 naming clip, with the page's size", async () => {
      const error = await expectRenderError(
        rk.render("/shapes", { width: 800, height: 600, clip: "0,1900,100,200" }),
        "InvalidOptions",
      );
      expect(error.details?.option).toBe("clip");
      expect(error.message).toMatch(/beyond the page, which is 1300×2000/);
    });
  });
});
