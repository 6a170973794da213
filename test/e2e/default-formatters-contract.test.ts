// The core's formatter contract, run for its built-in formats (pdf, html, mhtml) on both engines.
// Here rather than in core/test: the core cannot depend on an engine plugin.
import { definePlugin, FORMATTER, type Formatter } from "@renderkit/core";
import { FIXTURE_TEXT, formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { expect } from "vitest";
import { HtmlFormatter } from "../../core/dist/defaults/html-formatter.js";
import { MhtmlFormatter } from "../../core/dist/defaults/mhtml-formatter.js";
import { PdfFormatter } from "../../core/dist/defaults/pdf-formatter.js";
import { pdfInfo, pdfText } from "../helpers/pdf.js";

/** The formatters `createRenderer` fills in, registered as a plugin would (the renderer then adds none of its own). */
const builtInFormats = definePlugin(() => ({
  name: "@renderkit/core built-in formats",
  register({ container }) {
    for (const formatter of [new PdfFormatter(), new HtmlFormatter(), new MhtmlFormatter()]) {
      container.register(FORMATTER, { useValue: formatter as Formatter });
    }
  },
}));

for (const [name, engine] of [
  ["playwright", playwright],
  ["puppeteer", puppeteer],
] as const) {
  formatterContract({
    name: `core built-in formats on ${name}`,
    plugin: () => builtInFormats(),
    engine: () => engine(),
    samples: {
      pdf: {
        async check(_bytes, result) {
          expect((await pdfInfo(result)).pages).toBe(1);
          expect(await pdfText(result)).toContain(FIXTURE_TEXT);
        },
        // Both pass the option table; the formatter's own check refuses them.
        invalid: [
          { options: { pdf_page_range: "first-last" }, option: "pdf_page_range" },
          { options: { pdf_margin_left: "150mm", pdf_margin_right: "150mm" }, option: "pdf_margin_left" },
        ],
      },
      html: {
        // The DOM after scripts ran: the heading as the page built it.
        check: (bytes) => expect(bytes.toString("utf8")).toMatch(new RegExp(`<h1>${FIXTURE_TEXT}</h1>`)),
      },
    },
  });
}
