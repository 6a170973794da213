// The core's formatter contract for the svg format on the fake engine, with the pdf method: the
// fake's printed page goes through pdftocairo as Chromium's does. The dom method runs dom-to-svg
// in the page, which needs a real browser: contract.test.ts runs both methods on a real engine.
import { type FakeEvaluate, FIXTURE_BACKGROUND, fakeEngine, formatterContract } from "@renderkit/core/testing";
import { svgFormat } from "@renderkit/format-svg";
import sharp from "sharp";
import { expect } from "vitest";

/** Rasterised (librsvg), the SVG shows the fixture's background right of its heading. */
async function showsBackground(bytes: Buffer): Promise<void> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (40 * info.width + (info.width - 4)) * info.channels;
  for (const [i, expected] of FIXTURE_BACKGROUND.entries())
    expect(Math.abs((data[at + i] ?? 0) - expected)).toBeLessThanOrEqual(8);
}

/** The formatter asks where the viewport is scrolled to (capture-area.ts); a fake page never scrolls. */
const scrollPosition: FakeEvaluate = (script) =>
  script === "() => ({ x: window.scrollX, y: window.scrollY })" ? { x: 0, y: 0 } : undefined;

formatterContract({
  name: "@renderkit/format-svg on the fake engine, default method pdf",
  plugin: () => svgFormat({ defaultMethod: "pdf" }),
  engine: () => fakeEngine({ evaluate: scrollPosition }),
  samples: {
    svg: {
      async check(bytes, result) {
        expect(result.method).toBe("pdf");
        await showsBackground(bytes);
      },
    },
  },
});
