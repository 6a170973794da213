import { describe, expect, it } from "vitest";
import { COLOUR } from "../fixtures/pages.js";
import { decode, expectColour } from "../helpers/image.js";
import { type PdfInfo, pdfFirstPagePng, pdfInfo, pdfText, wordPosition } from "../helpers/pdf.js";
import { forEachEngine, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });

  /** 1 cm in PDF points. */
  const CM = 72 / 2.54;

  /**
   * Asserts the page size in points and poppler's paper name. Chromium snaps paper sizes up to its
   * 1/300 in print grid, so A4 (595.28×841.89) comes out as 595.92×841.92: allow 1 pt.
   */
  function expectPaper(info: PdfInfo, width: number, height: number, paper: string): void {
    expect(Math.abs(info.width - width), `width ${info.width} pt, expected ${width}`).toBeLessThanOrEqual(1);
    expect(Math.abs(info.height - height), `height ${info.height} pt, expected ${height}`).toBeLessThanOrEqual(1);
    expect(info.paper).toBe(paper);
  }

  describe("pdf paper", () => {
    it("defaults to one A4 portrait page holding the page's text", async () => {
      const result = await e2e.render("/doc", { format: "pdf" });
      expect(result.format).toBe("pdf");
      expect(result.contentType).toBe("application/pdf");
      const info = await pdfInfo(result);
      expect(info.pages).toBe(1);
      expectPaper(info, 595.28, 841.89, "A4");
      const text = await pdfText(result);
      expect(text).toContain("Hello renderkit PDF");
      expect(text).toContain("Second line.");
    });

    it("pdf_page_size Letter is 612×792 pt", async () => {
      const info = await pdfInfo(await e2e.render("/doc", { format: "pdf", pdf_page_size: "letter" }));
      expectPaper(info, 612, 792, "letter");
    });

    it("pdf_orientation landscape swaps width and height", async () => {
      const a4 = await pdfInfo(await e2e.render("/doc", { format: "pdf", pdf_orientation: "landscape" }));
      expectPaper(a4, 841.89, 595.28, "A4");
      const letter = await pdfInfo(
        await e2e.render("/doc", { format: "pdf", pdf_page_size: "Letter", pdf_orientation: "landscape" }),
      );
      expectPaper(letter, 792, 612, "letter");
    });
  });

  describe("pdf layout", () => {
    it("pdf_margin moves the text in from the paper's edges", async () => {
      const none = await wordPosition(await e2e.render("/doc", { format: "pdf" }), "Hello");
      const preset = await wordPosition(await e2e.render("/doc", { format: "pdf", pdf_margin: "default" }), "Hello");
      const minimum = await wordPosition(await e2e.render("/doc", { format: "pdf", pdf_margin: "minimum" }), "Hello");
      // Chromium rounds margins to whole CSS pixels (1 cm = 37.8 px → 37 px = 27.75 pt): allow 1 pt.
      const within = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1);
      expect(none.x).toBeLessThan(1);
      within(preset.x - none.x, 1 * CM);
      within(preset.y - none.y, 1 * CM);
      within(minimum.x - none.x, 0.4 * CM);
    });

    it("pdf_background prints the page background; false leaves the paper white", async () => {
      const printed = await decode(await pdfFirstPagePng(await e2e.render("/background", { format: "pdf" })));
      expectColour(printed, printed.width / 2, printed.height * 0.75, COLOUR.blue, { tolerance: 8 });
      const bare = await decode(await pdfFirstPagePng(await e2e.render("/background", { format: "pdf", pdf_background: false })));
      expectColour(bare, bare.width / 2, bare.height * 0.75, COLOUR.white, { tolerance: 8 });
    });

    it("a three-page document gives three pages; full_page gives one tall page", async () => {
      const paged = await e2e.render("/doc3", { format: "pdf" });
      expect((await pdfInfo(paged)).pages).toBe(3);
      const single = await e2e.render("/doc3", { format: "pdf", full_page: true });
      const info = await pdfInfo(single);
      expect(info.pages).toBe(1);
      // The viewport's width (1280 px = 960 pt) and the document's 3000 px height (2250 pt).
      expect(info.width).toBeCloseTo(960, 0);
      expect(Math.abs(info.height - 2250)).toBeLessThanOrEqual(2);
      const text = await pdfText(single);
      for (const word of ["Section one", "Section two", "Section three"]) expect(text).toContain(word);
    });

    // The catalogue promises "for PDF a single-page PDF", also when the document forces page breaks.
    it("full_page gives one page even when the document forces page breaks", async () => {
      const paged = await e2e.render("/breaks", { format: "pdf" });
      expect((await pdfInfo(paged)).pages).toBe(3);
      expect((await pdfInfo(await e2e.render("/breaks", { format: "pdf", full_page: true }))).pages).toBe(1);
    });

    it("pdf_show_footer puts page numbers into every page", async () => {
      const result = await e2e.render("/doc3", { format: "pdf", pdf_show_footer: true });
      expect((await pdfInfo(result)).pages).toBe(3);
      const pages = (await pdfText(result)).split("\f");
      for (const n of [1, 2, 3]) expect(pages[n - 1]).toMatch(new RegExp(`\\b${n}/3\\b`));
    });
  });

  describe("pdf media", () => {
    it("prints with print CSS by default", async () => {
      const text = await pdfText(await e2e.render("/media", { format: "pdf" }));
      expect(text).toContain("PRINT VERSION");
      expect(text).not.toContain("SCREEN VERSION");
    });

    it("media: screen prints the screen styles", async () => {
      const text = await pdfText(await e2e.render("/media", { format: "pdf", media: "screen" }));
      expect(text).toContain("SCREEN VERSION");
      expect(text).not.toContain("PRINT VERSION");
    });
  });
});
