// The core's formatter contract, as every format plugin runs it: here the txt format, on both
// first-party engines. The contract renders a fixture page of its own and checks the text format
// carries the page's text; the plugin's own limit is its `validate` check.
import { formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { expect } from "vitest";
import { textFormat } from "../text-format.mjs";

for (const [name, engine] of [
  ["playwright", playwright],
  ["puppeteer", puppeteer],
]) {
  formatterContract({
    name: `example/format-text on ${name}`,
    plugin: () => textFormat({ maxChars: 5_000 }),
    engine: () => engine(),
    samples: {
      txt: {
        // innerText: the heading and the paragraph, no markup.
        check: (bytes, result) => {
          expect(bytes.toString("utf8")).not.toContain("<");
          expect(result.characters).toBe(bytes.toString("utf8").length);
        },
        invalid: [{ options: { txt_max_chars: 6_000 }, option: "txt_max_chars" }],
      },
    },
  });
}
