// The core's formatter contract, run for the image formats on both engines.
import { FIXTURE_BACKGROUND, formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { expect } from "vitest";
import { decode } from "../../../test/helpers/image.js";

/** The decoded image shows the fixture's background away from its text (lossy formats: within 16 per channel). */
async function showsBackground(bytes: Buffer): Promise<void> {
  const image = await decode(bytes);
  const [r, g, b] = image.at(image.width - 4, image.height - 4);
  for (const [i, channel] of [r, g, b].entries())
    expect(Math.abs(channel - (FIXTURE_BACKGROUND[i] ?? 0))).toBeLessThanOrEqual(16);
}

const sample = {
  check: showsBackground,
  // A colour sharp cannot read is refused by the formatter's own check, naming the option.
  invalid: [{ options: { bg_color: "not-a-colour" }, option: "bg_color" }],
};

for (const [name, engine] of [
  ["playwright", playwright],
  ["puppeteer", puppeteer],
] as const) {
  formatterContract({
    name: `@renderkit/format-image on ${name}`,
    plugin: () => imageFormats(),
    engine: () => engine(),
    samples: { png: sample, jpg: sample, webp: sample, avif: sample },
  });
}
