import { FIXTURE_BACKGROUND, type FormatterSample } from "@renderkit/core/testing";
import { expect } from "vitest";
import { decode } from "../../../test/helpers/image.js";

/** The decoded image shows the fixture's background away from its text (lossy formats: within 16 per channel). */
async function showsBackground(bytes: Buffer): Promise<void> {
  const image = await decode(bytes);
  const [r, g, b] = image.at(image.width - 4, image.height - 4);
  for (const [i, channel] of [r, g, b].entries())
    expect(Math.abs(channel - (FIXTURE_BACKGROUND[i] ?? 0))).toBeLessThanOrEqual(16);
}

/** The formatter suite's sample of every image format, on a real engine or the fake one (with `options`). */
export function imageSample(options?: Record<string, unknown>): FormatterSample {
  return {
    options,
    check: showsBackground,
    // A colour sharp cannot read is refused by the formatter's own check, naming the option.
    invalid: [{ options: { bg_color: "not-a-colour" }, option: "bg_color" }],
  };
}
