// `blank: true` whenever the output is one colour (issue 34): full-page and stitched captures,
// pages that hide their own body, empty pages, and PDFs with no text and no paint; never for a
// page with little content. Each blank output is checked to really be one colour, and each
// non-blank one to show its content.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RenderResult } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLANK_PAGES, blankRoutes } from "../fixtures/blank-pages.js";
import { readRender } from "../helpers/image.js";
import { pdfText } from "../helpers/pdf.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

const run = promisify(execFile);

/** Largest difference per channel between an image's pixels: 0–3 is one colour (the check's tolerance). */
async function spread(image: Uint8Array): Promise<number> {
  const { channels } = await sharp(image).stats();
  return Math.max(...channels.map((c) => c.max - c.min));
}

/** Every page of a PDF rasterised at a low resolution (pdftoppm), one PNG each. */
async function pdfPages(result: RenderResult): Promise<Buffer[]> {
  const { stdout } = await run("pdftoppm", ["-r", "18", "-png", fileURLToPath(result.renderUrl)], {
    encoding: "buffer",
    maxBuffer: 16 * 1024 * 1024,
  });
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const pngs: Buffer[] = [];
  for (let at = stdout.indexOf(signature); at >= 0; ) {
    const next = stdout.indexOf(signature, at + 1);
    pngs.push(stdout.subarray(at, next < 0 ? undefined : next));
    at = next;
  }
  return pngs;
}

/**
 * Asserts `blank: true` and an output of one colour (every page of a PDF): within the check's
 * tolerance, or a few levels more for lossy encoders (webp and jpg dither a flat colour slightly).
 */
async function expectBlank(result: RenderResult, what: string): Promise<void> {
  expect(result.blank, what).toBe(true);
  const images = result.format === "pdf" ? await pdfPages(result) : [await readRender(result)];
  expect(images.length, what).toBeGreaterThan(0);
  const tolerance = result.format === "webp" || result.format === "jpg" ? 8 : 3;
  for (const image of images) expect(await spread(image), what).toBeLessThanOrEqual(tolerance);
}

forEachEngine((engine) => {
  let fixture: FixtureServer;
  let started: TestRenderer;
  /** Checks of engine-independent code (the flat check, the PDF reader): one engine only. */
  const once = onOneEngine(engine);

  beforeAll(async () => {
    fixture = await startFixtureServer(blankRoutes());
    started = await startRenderer([`127.0.0.1:${fixture.port}`], {}, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (path: string, options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}${path}`, ...BLANK_PAGES.viewport, ...options });
  const tall = { full_page: true, max_height: 20_000 };
  const sections = { ...tall, max_section_height: BLANK_PAGES.sectionPixels };

  describe("pages that hide their own body until a script that never comes", () => {
    // Both engines: what is visible is asked of each engine's page, and each prints the PDF.
    it("visibility: hidden on body and opacity: 0 on html: blank: true for png and pdf", async () => {
      for (const path of ["/hidden-body", "/async-hide"]) {
        await expectBlank(await render(path), `${path} png`);
        await expectBlank(await render(path, { format: "pdf" }), `${path} pdf`);
      }
      // The script that would have shown the page was asked for, and failed.
      expect(fixture.requests.some((r) => r.path === "/never/chartbeat.js")).toBe(true);
      expect(fixture.requests.some((r) => r.path === "/never/optimize.js")).toBe(true);
    });

    once("full_page and jpg of such a page are blank too", async () => {
      await expectBlank(await render("/hidden-body", tall), "full_page");
      await expectBlank(await render("/async-hide", { format: "jpg" }), "jpg");
    });

    once("waiting for the page to show itself (wait_for) captures it shown, not blank", async () => {
      const shown = [
        ["/hidden-body-revealed", "h1"],
        ["/async-hide-revealed", "html:not(.async-hide)"],
      ] as const;
      for (const [path, selector] of shown) {
        for (const format of ["png", "pdf"]) {
          const result = await render(path, { format, wait_for: selector });
          expect(result, `${path} ${format}`).not.toHaveProperty("blank");
        }
      }
    });
  });

  describe("full-page and stitched captures", () => {
    // Both engines: each engine's clip screenshots beyond the viewport make the sections.
    it("full_page of a tall white page is blank, in one capture and in sections", async () => {
      for (const options of [tall, sections]) {
        const result = await render("/tall-white", options);
        expect(result.height, JSON.stringify(options)).toBe(BLANK_PAGES.tallHeight);
        await expectBlank(result, JSON.stringify(options));
      }
    });

    once("one line of text at the very bottom of a tall page is not blank, in one capture and in the last section", async () => {
      for (const options of [tall, sections, { ...sections, format: "webp" }]) {
        const result = await render("/tall-last-line", options);
        expect(result, JSON.stringify(options)).not.toHaveProperty("blank");
        // The text is there, in the last 40 px; everything above it is white.
        const image = await readRender(result);
        const bottom = BLANK_PAGES.tallHeight - 40;
        expect(
          await spread(await sharp(image).extract({ left: 0, top: bottom, width: 400, height: 40 }).toBuffer()),
        ).toBeGreaterThan(100);
        expect(
          await spread(await sharp(image).extract({ left: 0, top: 0, width: 400, height: bottom }).toBuffer()),
        ).toBeLessThanOrEqual(3);
      }
    });
  });

  describe("little content is never blank", () => {
    once("a heading, a small image, a thin border: png, full_page and pdf", async () => {
      for (const path of ["/heading", "/small-image", "/thin-border"]) {
        for (const options of [{}, tall, { format: "pdf" }]) {
          const result = await render(path, options);
          expect(result, `${path} ${JSON.stringify(options)}`).not.toHaveProperty("blank");
        }
      }
    });

    // Both engines: each prints the PDF the check reads.
    it("a pdf of one word is not blank; a pdf of an empty page is", async () => {
      const word = await render("/one-word", { format: "pdf" });
      expect(word).not.toHaveProperty("blank");
      expect(await pdfText(word)).toContain("Word");
      await expectBlank(await render("/empty", { format: "pdf" }), "empty pdf");
    });
  });

  describe("pages that are empty or one colour", () => {
    // Both engines (the decision on empty pages): the output is one colour, so it is blank; no
    // retry is spent on a DOM with nothing visible.
    it("the empty page and a single-colour page are blank in png, webp and pdf", async () => {
      for (const path of ["/empty", "/single-colour"]) {
        for (const options of [{}, { format: "webp" }, tall, { format: "pdf" }]) {
          await expectBlank(await render(path, options), `${path} ${JSON.stringify(options)}`);
        }
      }
      // Margins are renderkit's, like an image's padding: the page inside them is one colour.
      const framed = await render("/single-colour", { format: "pdf", pdf_margin: "default" });
      expect(framed.blank).toBe(true);
    });
  });
});
