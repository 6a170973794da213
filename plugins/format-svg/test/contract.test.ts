// The core's formatter contract, run for the svg format with each method as the plugin's default.
import { FIXTURE_BACKGROUND, FIXTURE_TEXT, formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { svgFormat } from "@renderkit/format-svg";
import sharp from "sharp";
import { expect } from "vitest";

/**
 * Rasterised (librsvg), the SVG shows the fixture's background right of its heading. (Not lower
 * down: dom-to-svg paints the body's own box, not the canvas the root background spreads over.)
 */
async function showsBackground(bytes: Buffer): Promise<void> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (40 * info.width + (info.width - 4)) * info.channels;
  for (const [i, expected] of FIXTURE_BACKGROUND.entries())
    expect(Math.abs((data[at + i] ?? 0) - expected)).toBeLessThanOrEqual(8);
}

for (const method of ["pdf", "dom"] as const) {
  formatterContract({
    name: `@renderkit/format-svg, default method ${method}`,
    plugin: () => svgFormat({ defaultMethod: method }),
    engine: () => playwright(),
    samples: {
      svg: {
        async check(bytes, result) {
          expect(result.method).toBe(method);
          await showsBackground(bytes);
          // dom keeps text as <text>; pdf draws glyph outlines.
          if (method === "dom") expect(bytes.toString("utf8")).toContain(FIXTURE_TEXT);
        },
      },
    },
  });
}
