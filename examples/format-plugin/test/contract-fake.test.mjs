// The same contract on the core's fake engine: no browser, a fixed page, well under a second. The
// fake runs no page script, so the test answers the plugin's own one (its visible text) from the
// page's text as the fake reads it; the real-engine run (contract.test.mjs) runs the script itself.
import { fakeEngine, formatterContract } from "@renderkit/core/testing";
import { expect } from "vitest";
import { textFormat } from "../text-format.mjs";

/** The plugin's one page script reads `innerText`: the fake page's text lines stand for it. */
const visibleText = (script, _selector, page) => (script.includes("innerText") ? page.parsed.lines.join("\n") : undefined);

formatterContract({
  name: "example/format-text on the fake engine",
  plugin: () => textFormat({ maxChars: 5_000 }),
  engine: () => fakeEngine({ evaluate: visibleText }),
  samples: {
    txt: {
      check: (bytes, result) => {
        expect(bytes.toString("utf8")).not.toContain("<");
        expect(result.characters).toBe(bytes.toString("utf8").length);
      },
      invalid: [{ options: { txt_max_chars: 6_000 }, option: "txt_max_chars" }],
    },
  },
});
