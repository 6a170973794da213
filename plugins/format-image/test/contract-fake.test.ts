// The core's formatter contract for the image formats on the fake engine: no browser, a fixed
// picture of the page (its background, a band where its text is). contract.test.ts runs the same
// suite on both real engines.
import { fakeEngine, formatterContract } from "@renderkit/core/testing";
import { imageFormats } from "@renderkit/format-image";
import { imageSample } from "./contract-sample.js";

// A small viewport: the fake's picture holds nothing more at a larger one, and sharp's encoders
// (avif above all) take most of the time.
const sample = imageSample({ width: 320, height: 240 });

formatterContract({
  name: "@renderkit/format-image on the fake engine",
  plugin: () => imageFormats(),
  engine: () => fakeEngine(),
  samples: { png: sample, jpg: sample, webp: sample, avif: sample },
});
