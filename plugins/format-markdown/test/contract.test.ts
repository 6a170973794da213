// The core's formatter contract, run for the md format (the built-in check reads the page's text in it).
import { formatterContract } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { markdownFormat } from "@renderkit/format-markdown";
import { expect } from "vitest";

formatterContract({
  name: "@renderkit/format-markdown",
  plugin: () => markdownFormat(),
  engine: () => playwright(),
  samples: {
    md: {
      // The fixture's <h1> becomes an ATX heading.
      check: (bytes) => expect(bytes.toString("utf8")).toMatch(/^# Renderkit contract fixture$/m),
    },
  },
});
