// The core's formatter contract, run for the image formats on both engines.
import { formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { imageSample } from "./contract-sample.js";

const sample = imageSample();

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
