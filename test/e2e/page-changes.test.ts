import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { RenderResult } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOXES, lookup, PAINT, type PageSite, startPageSite } from "../fixtures/waiting-pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { type Decoded, decodeRender, expectColour } from "../helpers/image.js";
import { pdfText } from "../helpers/pdf.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

let site: PageSite;
beforeAll(async () => {
  site = await startPageSite();
});
afterAll(() => site?.close());

/** Pixels of `image` within `tolerance` of `rgb`. */
function count(image: Decoded, rgb: readonly [number, number, number], tolerance = 8): number {
  let n = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.at(x, y);
      if (Math.abs(r - rgb[0]) <= tolerance && Math.abs(g - rgb[1]) <= tolerance && Math.abs(b - rgb[2]) <= tolerance) n++;
    }
  }
  return n;
}

const text = async (result: RenderResult) => readFile(fileURLToPath(result.renderUrl), "utf8");

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let rk: TestRenderer;
  let runs = 0;
  beforeAll(async () => {
    rk = await startRenderer([`127.0.0.1:${site.port}`], { lookup }, engine);
  });
  afterAll(() => rk?.close());
  const render = (path: string, options: Record<string, unknown> = {}) =>
    rk.renderer.render({ url: `${site.url}${path}`, width: 600, height: 400, ...options });

  describe("disable_animations", () => {
    it("a 60 s CSS animation, a transition and a later Web Animation all show their end colour", async () => {
      const image = await decodeRender(await render("/animations", { disable_animations: true, delay: 1_500 }));
      expectColour(image, BOXES.css, 50, PAINT.green);
      expectColour(image, BOXES.transition, 50, PAINT.blue);
      expectColour(image, BOXES.waapi, 50, PAINT.yellow);
    });

    once("control: without it the boxes are still near their start colour", async () => {
      const image = await decodeRender(await render("/animations", { delay: 1_500 }));
      for (const x of Object.values(BOXES)) {
        const [r] = image.at(x, 50);
        expect(r, `box at x ${x} should still be mostly red`).toBeGreaterThan(200);
      }
    });
  });

  describe("highlight", () => {
    it("marks every occurrence in the text with the default colours, not in scripts, fields or attributes", async () => {
      const plain = await decodeRender(await render("/highlight"));
      expect(count(plain, PAINT.red)).toBe(0);
      const image = await decodeRender(await render("/highlight", { highlight: "fox|QUICK" }));
      // Three words of 60 px text on red.
      expect(count(image, PAINT.red)).toBeGreaterThan(3_000);
      const html = await text(await render("/highlight", { highlight: "fox|QUICK", format: "html" }));
      const marks = html.match(/<mark[^>]*>[^<]*<\/mark>/g) ?? [];
      expect(marks.map((m) => m.replace(/<[^>]+>/g, ""))).toEqual(["quick", "Fox", "fox"]);
      expect(marks[0]).toMatch(/color: white !important; background-color: red !important/);
      expect(html).toContain('title="fox attribute"');
      // The style sheet's text is untouched: its rule still paints the box below the text.
      expect(html).toContain(".fox-box { height: 40px; background: rgb(0, 128, 0); }");
      expectColour(image, 300, 20, PAINT.green);
      expect(html).toContain(">fox in a field</textarea>");
    });

    once("highlightfg and highlightbg colour the marks", async () => {
      const image = await decodeRender(
        await render("/highlight", { highlight: "fox", highlightbg: "#0000ff", highlightfg: "yellow" }),
      );
      expect(count(image, PAINT.blue)).toBeGreaterThan(1_000);
      expect(count(image, PAINT.red)).toBe(0);
    });

    once("a colour the browser does not know is refused naming the option", async () => {
      const error = await expectRenderError(
        render("/highlight", { highlight: "fox", highlightbg: "notacolour" }),
        "InvalidOptions",
      );
      expect(error.message).toBe("Option highlightbg is not a colour this browser knows");
    });
  });

  describe("hide_selector_x", () => {
    it("hides what XPath matches, also elements added after load", async () => {
      const control = await decodeRender(await render("/hide-x", { delay: 800 }));
      expectColour(control, 300, 50, PAINT.red);
      expectColour(control, 300, 250, PAINT.yellow);
      const image = await decodeRender(await render("/hide-x", { hide_selector_x: "//div[contains(@class, 'ad')]", delay: 800 }));
      // The promo is gone: the content moves up to the top; the late ad is gone too.
      expectColour(image, 300, 50, PAINT.blue);
      expectColour(image, 300, 150, PAINT.white);
      expectColour(image, 300, 250, PAINT.white);
    });

    once("an expression that is not XPath is refused naming the option", async () => {
      const error = await expectRenderError(render("/hide-x", { hide_selector_x: "//div[" }), "InvalidOptions");
      expect(error.message).toMatch(/^Option hide_selector_x "\/\/div\[" is not an XPath expression selecting elements/);
    });
  });

  describe("block_url_keywords", () => {
    it("blocks requests whose address contains a keyword, in any case", async () => {
      const run = `kw-${engine}-${++runs}`;
      const image = await decodeRender(await render(`/keywords?run=${run}`, { block_url_keywords: "tracker" }));
      expect(site.requests.filter((r) => r.startsWith("/img/Tracker-Pixel.png"))).toHaveLength(0);
      expect(site.requests.some((r) => r.startsWith("/img/plain.png"))).toBe(true);
      expectColour(image, 50, 50, PAINT.white);
      expectColour(image, 50, 150, PAINT.red);
    });
  });

  describe("block_sockets", () => {
    it("no WebSocket connection arrives, from the page or from a cross-site frame, and the page sees an error", async () => {
      const run = `ws-${engine}-${++runs}`;
      const image = await decodeRender(await render(`/sockets?run=${run}`, { block_sockets: true, delay: 500 }));
      expectColour(image, 50, 50, PAINT.red);
      expectColour(image, 50, 150, PAINT.red);
      expect(site.requests.some((r) => r === `/socket-frame?run=${run}`)).toBe(true);
      expect(site.upgrades.filter((u) => u.includes(`run=${run}`))).toEqual([]);
    });

    it("control: without it both sockets connect", async () => {
      const run = `ws-${engine}-${++runs}`;
      const image = await decodeRender(await render(`/sockets?run=${run}`, { delay: 500 }));
      expectColour(image, 50, 50, PAINT.green);
      expectColour(image, 50, 150, PAINT.green);
      expect(site.upgrades.filter((u) => u.includes(`run=${run}`)).sort()).toEqual([
        `/ws?run=${run}&from=frame`,
        `/ws?run=${run}&from=main`,
      ]);
    });
  });

  describe("readable", () => {
    it("a PDF of the reader view has the article and not the navigation, sidebar ad or footer", async () => {
      const control = await pdfText(await render("/article", { format: "pdf" }));
      for (const word of ["NAVMENUWORD", "ADVERTWORD", "FOOTERWORD", "ARTICLEWORD0"]) expect(control).toContain(word);
      const pdf = await pdfText(await render("/article", { format: "pdf", readable: true }));
      expect(pdf).toContain("The Readable Story");
      for (const i of [0, 3, 7]) expect(pdf).toContain(`ARTICLEWORD${i}`);
      for (const word of ["NAVMENUWORD", "ADVERTWORD", "FOOTERWORD"]) expect(pdf).not.toContain(word);
    });

    it("a png of the reader view has no trace of the coloured navigation and ad, and shows the text", async () => {
      const control = await decodeRender(await render("/article"));
      expect(count(control, PAINT.magenta)).toBeGreaterThan(10_000);
      expect(count(control, PAINT.cyan)).toBeGreaterThan(10_000);
      const image = await decodeRender(await render("/article", { readable: true }));
      expect(count(image, PAINT.magenta)).toBe(0);
      expect(count(image, PAINT.cyan)).toBe(0);
      // Dark text pixels in the column.
      expect(count(image, [27, 27, 27], 40)).toBeGreaterThan(500);
    });

    once("a page without an article fails the render instead of capturing it unchanged", async () => {
      const error = await expectRenderError(render("/no-article", { readable: true }), "EngineResponseNotOkError");
      expect(error.message).toMatch(/^readable: no article could be found in the page/);
    });
  });
});
