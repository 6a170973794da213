// The core's formatter contract for the md format on the fake engine: no browser. The fake runs
// no page script, so it answers the formatter's in-page step (turndown in the browser) as a page
// that broke turndown's DOM built-ins does: with the body's HTML, which the formatter then
// converts in Node. contract.test.ts runs the in-page step itself, on a real engine.
import { type FakeEvaluate, fakeEngine, formatterContract } from "@renderkit/core/testing";
import { markdownFormat, type PageExtract, pageScript } from "@renderkit/format-markdown";
import { expect } from "vitest";

const scripts = await Promise.all([pageScript(false), pageScript(true)]);

const inPageStep: FakeEvaluate = (script, _arg, page) => {
  if (!scripts.includes(script)) return undefined;
  const html = /<body[^>]*>([\s\S]*)<\/body>/i.exec(page.parsed.html)?.[1] ?? page.parsed.html;
  const extract: PageExtract = {
    html,
    baseUrl: page.response.url,
    title: page.parsed.title,
    extracted: false,
    hasH1: /<h1[\s>]/i.test(html),
  };
  return extract;
};

formatterContract({
  name: "@renderkit/format-markdown on the fake engine",
  plugin: () => markdownFormat(),
  engine: () => fakeEngine({ evaluate: inPageStep }),
  samples: {
    md: {
      // The fixture's <h1> becomes an ATX heading.
      check: (bytes) => expect(bytes.toString("utf8")).toMatch(/^# Renderkit contract fixture$/m),
    },
  },
});
