// The core's formatter contract for the image formats on the fake engine: no browser, a fixed
// picture of the page (its background, a band where its text is). contract.test.ts runs the same
// suite on both real engines.
import { FIXTURE_BACKGROUND, fakeEngine, formatterContract } from "@renderkit/core/testing";
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
  // A small viewport: the fake's picture holds nothing more at a larger one, and sharp's encoders
  // (avif above all) take most of the time.
  options: { width: 320, height: 240 },
  check: showsBackground,
  // A colour sharp cannot read is refused by the formatter's own check, naming the option.
  invalid: [{ options: { bg_color: "not-a-colour" }, option: "bg_color" }],
};

formatterContract({
  name: "@renderkit/format-image on the fake engine",
  plugin: () => imageFormats(),
  engine: () => fakeEngine(),
  samples: { png: sample, jpg: sample, webp: sample, avif: sample },
});
