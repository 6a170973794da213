// The core's formatter contract for its built-in formats (pdf, html, mhtml) on the fake engine: no
// browser, a fixed page. The same suite runs on both real engines in
// test/e2e/default-formatters-contract.test.ts (there the pdf is Chromium's, read by poppler).
import { definePlugin, FORMATTER, type Formatter } from "@renderkit/core";
import { FIXTURE_TEXT, fakeEngine, formatterContract } from "@renderkit/core/testing";
import { expect } from "vitest";
import { HtmlFormatter } from "../dist/defaults/html-formatter.js";
import { MhtmlFormatter } from "../dist/defaults/mhtml-formatter.js";
import { PdfFormatter } from "../dist/defaults/pdf-formatter.js";

/** The formatters `createRenderer` fills in, registered as a plugin would (the renderer then adds none of its own). */
const builtInFormats = definePlugin(() => ({
  name: "@renderkit/core built-in formats",
  register({ provide }) {
    for (const formatter of [new PdfFormatter(), new HtmlFormatter(), new MhtmlFormatter()])
      provide(FORMATTER, formatter as Formatter);
  },
}));

formatterContract({
  name: "core built-in formats on the fake engine",
  plugin: () => builtInFormats(),
  engine: () => fakeEngine(),
  samples: {
    pdf: {
      // The fake prints one page with the page's text as it is, uncompressed.
      check: (bytes) => {
        expect(bytes.toString("latin1").match(/\/Type \/Page\b/g)).toHaveLength(1);
        expect(bytes.toString("latin1")).toContain(`(${FIXTURE_TEXT})`);
      },
      // Both pass the option table; the formatter's own check refuses them.
      invalid: [
        { options: { pdf_page_range: "first-last" }, option: "pdf_page_range" },
        { options: { pdf_margin_left: "150mm", pdf_margin_right: "150mm" }, option: "pdf_margin_left" },
      ],
    },
    html: {
      // The DOM as the fake page holds it: the heading as the fixture wrote it.
      check: (bytes) => expect(bytes.toString("utf8")).toMatch(new RegExp(`<h1>${FIXTURE_TEXT}</h1>`)),
    },
  },
});
