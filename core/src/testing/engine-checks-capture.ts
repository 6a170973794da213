import { expect } from "vitest";
import type { PdfSettings, ScreenshotSettings } from "../contracts/capture-settings.js";
import { colourHtml } from "./engine-fixture.js";
import type { EngineHarness } from "./engine-harness.js";
import { decodePng, isPng, pngSize } from "./png.js";

const PNG: ScreenshotSettings = { type: "png", fullPage: false, omitBackground: false };

/** A4 portrait, no margins, no header or footer. */
export const A4_PDF: PdfSettings = {
  width: "210mm",
  height: "297mm",
  landscape: false,
  margin: { top: "0", right: "0", bottom: "0", left: "0" },
  printBackground: true,
  scale: 1,
  displayHeaderFooter: false,
  headerTemplate: "<span></span>",
  footerTemplate: "<span></span>",
  preferCSSPageSize: false,
};

function expectColour(actual: number[], expected: number[]): void {
  for (const [i, value] of expected.entries()) expect(Math.abs((actual[i] ?? -1) - value), `channel ${i}`).toBeLessThanOrEqual(3);
}

/** Screenshots and PDF. */
export function captureChecks(h: EngineHarness): void {
  h.check(
    "a viewport screenshot is a PNG of the viewport size times deviceScaleFactor",
    async () => {
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        expect(pngSize(await s.screenshot(PNG))).toEqual({ width: 800, height: 600 });
      });
      await h.withPage({ url: h.url("/") }, { width: 400, height: 300, deviceScaleFactor: 2 }, async (s) => {
        expect(pngSize(await s.screenshot(PNG))).toEqual({ width: 800, height: 600 });
      });
    },
    "screenshot",
  );

  h.check(
    "screenshots show the page's colours",
    async () => {
      const shot = (colour: string) =>
        h.withPage({ html: colourHtml(colour) }, { width: 100, height: 100 }, (s) => s.screenshot(PNG));
      const red = await shot("rgb(255, 0, 0)");
      const blue = await shot("rgb(0, 0, 255)");
      expect(pngSize(red)).toEqual({ width: 100, height: 100 });
      expect(Buffer.compare(Buffer.from(red), Buffer.from(blue))).not.toBe(0);
      expectColour(decodePng(red).pixel(50, 50), [255, 0, 0, 255]);
      expectColour(decodePng(blue).pixel(10, 90), [0, 0, 255, 255]);
    },
    "screenshot",
  );

  h.check(
    "omitBackground gives transparent pixels where the page paints none",
    async () => {
      const html = `<!doctype html><html><body style="margin:0"><div style="width:50px;height:50px;background:#0f0"></div></body></html>`;
      await h.withPage({ html }, { width: 200, height: 200 }, async (s) => {
        const image = decodePng(await s.screenshot({ ...PNG, omitBackground: true }));
        expect(image.pixel(150, 150)[3]).toBe(0);
        expectColour(image.pixel(10, 10), [0, 255, 0, 255]);
      });
    },
    "screenshot",
  );

  h.check(
    "a viewport screenshot, and a clip below the fold, encoded for speed: the same pixels in more bytes",
    async () => {
      const expectSamePixels = (compact: Uint8Array, fast: Uint8Array) => {
        expect(fast.length).toBeGreaterThan(compact.length);
        const [a, b] = [decodePng(compact), decodePng(fast)];
        expect([b.width, b.height]).toEqual([a.width, a.height]);
        let differing = 0;
        for (let y = 0; y < a.height; y++) {
          for (let x = 0; x < a.width; x++) if (a.pixel(x, y).join() !== b.pixel(x, y).join()) differing++;
        }
        expect(differing).toBe(0);
      };
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        expectSamePixels(await s.screenshot(PNG), await s.screenshot({ ...PNG, optimizeForSpeed: true }));
      });
      // Below the 600 px viewport: text lines and, at 2000 px, a red block.
      await h.withPage({ url: h.url("/tall-text") }, {}, async (s) => {
        const clip = { ...PNG, fullPage: true, clip: { x: 0, y: 1900, width: 400, height: 200 } };
        const fast = await s.screenshot({ ...clip, optimizeForSpeed: true });
        expect(pngSize(fast)).toEqual({ width: 400, height: 200 });
        expectColour(decodePng(fast).pixel(150, 150), [255, 0, 0, 255]);
        expectSamePixels(await s.screenshot(clip), fast);
        // With a transparent background: the page paints none beside its text and block.
        const clear = { ...clip, omitBackground: true };
        const clearFast = await s.screenshot({ ...clear, optimizeForSpeed: true });
        expect(decodePng(clearFast).pixel(350, 150)[3]).toBe(0);
        expectColour(decodePng(clearFast).pixel(150, 150), [255, 0, 0, 255]);
        expectSamePixels(await s.screenshot(clear), clearFast);
        // The background is back for the next capture.
        expectColour(decodePng(await s.screenshot(clip)).pixel(350, 150), [255, 255, 255, 255]);
      });
    },
    "screenshot",
  );

  h.check(
    "a JPEG screenshot is a JPEG",
    async () => {
      await h.withPage({ html: colourHtml("#fc0") }, {}, async (s) => {
        const bytes = await s.screenshot({ type: "jpeg", quality: 50, fullPage: false, omitBackground: false });
        expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      });
    },
    "screenshot",
  );

  h.check(
    "fullPage captures the whole document, and a clip below the fold captures that area",
    async () => {
      await h.withPage({ url: h.url("/tall") }, {}, async (s) => {
        expect(pngSize(await s.screenshot({ ...PNG, fullPage: true }))).toEqual({ width: 800, height: 3000 });
      });
      const marker = `<div style="position:absolute;left:0;top:2000px;width:300px;height:200px;background:#f00"></div>`;
      const html = `<!doctype html><html><body style="margin:0"><div style="height:3000px"></div>${marker}</body></html>`;
      await h.withPage({ html }, { deviceScaleFactor: 2 }, async (s) => {
        const clip = { x: 0, y: 2000, width: 200, height: 150 };
        const bytes = await s.screenshot({ ...PNG, fullPage: true, clip });
        expect(pngSize(bytes)).toEqual({ width: 400, height: 300 });
        expectColour(decodePng(bytes).pixel(200, 150), [255, 0, 0, 255]);
      });
    },
    "screenshot",
  );

  h.check(
    "pdf returns a PDF document",
    async () => {
      await h.withPage({ url: h.url("/tall") }, { media: "print" }, async (s) => {
        const bytes = await s.pdf(A4_PDF);
        expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
        expect(bytes.length).toBeGreaterThan(500);
      });
    },
    "pdf",
  );

  h.check(
    "screenshots still work after pdf and content on the same page",
    async () => {
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        if (h.engine.capabilities.has("content")) await s.content();
        if (h.engine.capabilities.has("pdf")) await s.pdf(A4_PDF);
        expect(isPng(await s.screenshot(PNG))).toBe(true);
      });
    },
    "screenshot",
  );
}
