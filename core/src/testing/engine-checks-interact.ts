import { expect } from "vitest";
import { expectRenderError } from "./assertions.js";
import { A4_PDF } from "./engine-checks-capture.js";
import type { EngineHarness } from "./engine-harness.js";
import { decodePng, pngSize } from "./png.js";

const PNG = { type: "png", fullPage: false, omitBackground: false } as const;

/** Three `.target` boxes: a hidden one first, then `#second` below the fold, then `#third`; hover turns them red. */
const HOVER_HTML = `<!doctype html><html><head><title>hover</title><style>
  body { margin: 0 } .target { width: 100px; height: 100px; background: rgb(0, 0, 255) }
  .target:hover { background: rgb(255, 0, 0) } #first { display: none } #second { margin-top: 1500px }
</style></head><body><div class="target" id="first"></div><div class="target" id="second"></div>
<div class="target" id="third"></div><p class="hidden" style="visibility:hidden">hidden</p></body></html>`;

const KEYS_HTML = `<!doctype html><html><head><title>keys</title></head><body><input id="field">
<script>window.keys = []; addEventListener("keydown", (e) => window.keys.push(["down", e.key, e.target.id || e.target.nodeName]));
addEventListener("keyup", (e) => window.keys.push(["up", e.key, e.target.id || e.target.nodeName]));</script></body></html>`;

/** Four `.item` buttons (the third hidden) recording their clicks in `window.clicked`. */
const CLICK_HTML = `<!doctype html><html><head><title>click</title></head><body>
<button class="item" id="one">go</button><button class="item" id="two">go</button>
<button class="item" id="three" style="display:none">go</button><button class="item" id="four">it's "here"</button>
<script>window.clicked = []; for (const b of document.querySelectorAll(".item")) b.onclick = () => window.clicked.push(b.id);</script></body></html>`;

function expectColour(actual: number[], expected: number[]): void {
  for (const [i, value] of expected.entries()) expect(Math.abs((actual[i] ?? -1) - value), `channel ${i}`).toBeLessThanOrEqual(3);
}

/** Hover, key presses, and what still works with page scripts disabled. */
export function interactChecks(h: EngineHarness): void {
  h.check("hover moves the mouse over the first visible match, scrolling it into view", async () => {
    await h.withPage({ html: HOVER_HTML }, {}, async (s) => {
      const hovered = "() => [...document.querySelectorAll('.target')].filter((e) => e.matches(':hover')).map((e) => e.id)";
      expect(await s.evaluate(hovered)).toEqual([]);
      expect(await s.hover(".target", { timeoutMs: 5_000 })).toBe(true);
      expect(await s.evaluate(hovered)).toEqual(["second"]);
      expect(await s.evaluate("() => getComputedStyle(document.getElementById('second')).backgroundColor")).toBe(
        "rgb(255, 0, 0)",
      );
      expect(await s.evaluate("() => scrollY")).toBeGreaterThan(0);
      expect(await s.hover("#third", { timeoutMs: 5_000 })).toBe(true);
      expect(await s.evaluate(hovered)).toEqual(["third"]);
      // The hovered box is in the viewport, painted red.
      const box = await s.evaluate<{ x: number; y: number }>(
        "() => { const r = document.getElementById('third').getBoundingClientRect(); return { x: r.left + 50, y: r.top + 50 } }",
      );
      const shot = decodePng(await s.screenshot(PNG));
      expectColour(shot.pixel(Math.round(box.x), Math.round(box.y)), [255, 0, 0, 255]);
    });
  });

  h.check("hover is false when nothing visible matches in time; a bad selector is InvalidOptions", async () => {
    await h.withPage({ html: HOVER_HTML }, {}, async (s) => {
      expect(await s.hover("#missing", { timeoutMs: 300 })).toBe(false);
      expect(await s.hover("#first", { timeoutMs: 300 })).toBe(false);
      expect(await s.hover(".hidden", { timeoutMs: 300 })).toBe(false);
      await expectRenderError(s.hover("div[", { timeoutMs: 300 }), "InvalidOptions");
      expect(await s.evaluate("() => document.title")).toBe("hover");
    });
  });

  h.check("hover waits for a match that becomes visible later", async () => {
    await h.withPage({ url: h.url("/late") }, {}, async (s) => {
      expect(await s.hover("#late", { timeoutMs: 5_000 })).toBe(true);
      expect(await s.evaluate("() => document.getElementById('late').matches(':hover')")).toBe(true);
    });
  });

  h.check("click takes a CSS selector or an { xpath } query: the first match, or every visible one", async () => {
    await h.withPage({ html: CLICK_HTML }, {}, async (s) => {
      const clicked = () => s.evaluate<string[]>("() => window.clicked.splice(0)");
      expect(await s.click({ xpath: "//button[text()='go']" }, { all: false, timeoutMs: 5_000 })).toBe(1);
      expect(await clicked()).toEqual(["one"]);
      expect(await s.click({ xpath: "//button[text()='go']" }, { all: true, timeoutMs: 5_000 })).toBe(2);
      expect(await clicked()).toEqual(["one", "two"]);
      // Both quote kinds and a line break reach the XPath engine as written.
      expect(
        await s.click({ xpath: `//button[contains(., "it's")]\n[contains(., '"here"')]` }, { all: false, timeoutMs: 5_000 }),
      ).toBe(1);
      expect(await clicked()).toEqual(["four"]);
      expect(await s.click({ xpath: "//button[@id='none']" }, { all: true, timeoutMs: 300 })).toBe(0);
      expect(await s.click({ xpath: "//button[@id='none']" }, { all: false, timeoutMs: 300 })).toBe(0);
      // The CSS path is unchanged, also for a string that reads like XPath to no engine.
      expect(await s.click("#two", { all: false, timeoutMs: 5_000 })).toBe(1);
      expect(await clicked()).toEqual(["two"]);
    });
  });

  h.check("press delivers keydown and keyup to the focused element or the page", async () => {
    await h.withPage({ html: KEYS_HTML }, {}, async (s) => {
      await s.press("Escape");
      expect(await s.evaluate("() => window.keys")).toEqual([
        ["down", "Escape", "BODY"],
        ["up", "Escape", "BODY"],
      ]);
      await s.evaluate("() => document.getElementById('field').focus()");
      await s.press("Enter");
      expect(await s.evaluate("() => window.keys.slice(2)")).toEqual([
        ["down", "Enter", "field"],
        ["up", "Enter", "field"],
      ]);
    });
  });

  h.check("with javaScriptEnabled false page scripts do not run, but evaluate, geometry and captures work", async () => {
    await h.withPage({ url: h.url("/prep/nojs") }, {}, async (s) => {
      expect(await s.evaluate("() => document.title")).toBe("ran");
    });
    await h.withPage({ url: h.url("/prep/nojs") }, { javaScriptEnabled: false }, async (s) => {
      expect(await s.evaluate("() => document.title")).toBe("nojs");
      expect(await s.evaluate("(x) => x + 1", 41)).toBe(42);
      expect(await s.documentSize()).toEqual({ width: 800, height: 2000 });
      expect(await s.elementBox("#box")).toEqual({ x: 0, y: 0, width: 100, height: 2000 });
      await s.addStyle("body { background: rgb(0, 255, 0) }");
      expect(await s.evaluate("() => getComputedStyle(document.body).backgroundColor")).toBe("rgb(0, 255, 0)");
      if (h.engine.capabilities.has("screenshot")) {
        const shot = decodePng(await s.screenshot(PNG));
        expectColour(shot.pixel(50, 50), [0, 0, 255, 255]);
        expectColour(shot.pixel(400, 50), [0, 255, 0, 255]);
        expect(pngSize(await s.screenshot({ ...PNG, fullPage: true }))).toEqual({ width: 800, height: 2000 });
      }
      if (h.engine.capabilities.has("pdf")) {
        const pdf = await s.pdf(A4_PDF);
        expect(Buffer.from(pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
      }
      expect(await s.hover("#box", { timeoutMs: 2_000 })).toBe(true);
      // Clicks need no page script: the browser toggles the checkbox itself.
      expect(await s.click("#tick", { all: false, timeoutMs: 2_000 })).toBe(1);
      expect(await s.evaluate("() => document.getElementById('tick').checked")).toBe(true);
      expect(await s.click("#tick", { all: true, timeoutMs: 2_000 })).toBe(1);
      expect(await s.evaluate("() => document.getElementById('tick').checked")).toBe(false);
      await s.press("Escape");
      expect(await s.evaluate("() => document.title")).toBe("nojs");
    });
  });
}
