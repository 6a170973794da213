import { expect } from "vitest";
import { SCRIPTED_HTML } from "./engine-fixture.js";
import type { EngineHarness } from "./engine-harness.js";

const html = (body: string) => ({ html: `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>` });

/** Page primitives: evaluate, waits, clicks, styles, geometry, content and emulation. */
export function pageChecks(h: EngineHarness): void {
  h.check("evaluate returns JSON values, takes an argument and awaits async functions", async () => {
    await h.withPage(html("<p>x</p>"), {}, async (s) => {
      expect(await s.evaluate("() => ({ a: 1, b: [true, null, 'x'], c: { d: 2.5 } })")).toEqual({
        a: 1,
        b: [true, null, "x"],
        c: { d: 2.5 },
      });
      expect(await s.evaluate("async () => { await new Promise((r) => setTimeout(r, 10)); return 42 }")).toBe(42);
      expect(await s.evaluate("(x) => x.n * 2", { n: 21 })).toBe(42);
      expect(await s.evaluate("() => document.querySelector('p').textContent")).toBe("x");
    });
  });

  h.check("evaluate rejects when the page function throws", async () => {
    await h.withPage(html(""), {}, async (s) => {
      await expect(s.evaluate("() => { throw new Error('boom') }")).rejects.toThrow();
      expect(await s.evaluate("() => 1")).toBe(1);
    });
  });

  h.check("waitForSelector is true for an element that appears later and false on timeout", async () => {
    await h.withPage({ url: h.url("/late") }, {}, async (s) => {
      expect(await s.waitForSelector("#late", { state: "visible", timeoutMs: 5_000 })).toBe(true);
      expect(await s.waitForSelector("#never", { state: "attached", timeoutMs: 500 })).toBe(false);
      // True at once when right; the long budget only keeps a busy machine from timing them out.
      expect(await s.waitForSelector("#never", { state: "detached", timeoutMs: 10_000 })).toBe(true);
      expect(await s.waitForSelector("#never", { state: "hidden", timeoutMs: 10_000 })).toBe(true);
    });
  });

  h.check("click clicks the first or every match and reports how many", async () => {
    const buttons = Array.from(
      { length: 3 },
      () => `<button class="b" onclick="window.clicks = (window.clicks || 0) + 1">b</button>`,
    );
    await h.withPage(html(buttons.join("")), {}, async (s) => {
      expect(await s.click(".b", { all: false, timeoutMs: 2_000 })).toBe(1);
      expect(await s.evaluate("() => window.clicks")).toBe(1);
      expect(await s.click(".b", { all: true, timeoutMs: 2_000 })).toBe(3);
      expect(await s.evaluate("() => window.clicks")).toBe(4);
      expect(await s.click("#none", { all: false, timeoutMs: 500 })).toBe(0);
    });
  });

  h.check("click with all skips hidden matches without waiting on them and counts only real clicks", async () => {
    const visible = `<button class="c" onclick="window.clicks = (window.clicks || 0) + 1">c</button>`;
    const hidden = `<button class="c" style="display:none" onclick="window.clicks = 100">h</button>`;
    await h.withPage(html(visible + hidden.repeat(4) + visible), {}, async (s) => {
      const begin = Date.now();
      expect(await s.click(".c", { all: true, timeoutMs: 3_000 })).toBe(2);
      // Waiting out the timeout once per hidden match would take 12 s.
      expect(Date.now() - begin).toBeLessThan(6_000);
      expect(await s.evaluate("() => window.clicks")).toBe(2);
    });
  });

  h.check("addStyle applies CSS to the page", async () => {
    await h.withPage(html("<p>x</p>"), {}, async (s) => {
      await s.addStyle("body { background-color: rgb(0, 128, 0) } p { display: none }");
      expect(await s.evaluate("() => getComputedStyle(document.body).backgroundColor")).toBe("rgb(0, 128, 0)");
      expect(await s.evaluate("() => getComputedStyle(document.querySelector('p')).display")).toBe("none");
    });
  });

  h.check("elementBox gives document coordinates, undefined when nothing matches", async () => {
    const box = `<div id="box" style="position:absolute;left:10px;top:1500px;width:120px;height:80px"></div>`;
    await h.withPage(html(`<div style="height:3000px"></div>${box}`), {}, async (s) => {
      expect(await s.elementBox("#box")).toEqual({ x: 10, y: 1500, width: 120, height: 80 });
      expect(await s.elementBox("#none")).toBeUndefined();
    });
  });

  h.check("documentSize reports the scroll size of a 3000px tall page", async () => {
    await h.withPage({ url: h.url("/tall") }, {}, async (s) => {
      const size = await s.documentSize();
      expect(size.height).toBe(3000);
      expect(size.width).toBe(800);
    });
  });

  h.check(
    "content() holds the DOM built by scripts",
    async () => {
      await h.withPage({ html: SCRIPTED_HTML }, {}, async (s) => {
        const content = await s.content();
        expect(content).toContain('<p id="built">built by script</p>');
      });
    },
    "content",
  );

  h.check(
    "javaScriptEnabled false keeps page scripts from running",
    async () => {
      await h.withPage({ html: SCRIPTED_HTML }, { javaScriptEnabled: false }, async (s) => {
        expect(await s.content()).not.toContain('<p id="built">');
      });
    },
    "content",
  );

  h.check("locale and timezone reach the page", async () => {
    await h.withPage(html(""), { locale: "fr-FR", timezone: "Asia/Tokyo" }, async (s) => {
      expect(await s.evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone")).toBe("Asia/Tokyo");
      expect(await s.evaluate("() => navigator.language")).toBe("fr-FR");
      expect(await s.evaluate("() => new Date(0).getTimezoneOffset()")).toBe(-540);
    });
  });

  h.check("colorScheme, reducedMotion and media are emulated", async () => {
    const query = (q: string) => `() => matchMedia(${JSON.stringify(q)}).matches`;
    await h.withPage(html(""), { colorScheme: "dark", reducedMotion: true, media: "print" }, async (s) => {
      expect(await s.evaluate(query("(prefers-color-scheme: dark)"))).toBe(true);
      expect(await s.evaluate(query("(prefers-reduced-motion: reduce)"))).toBe(true);
      expect(await s.evaluate(query("print"))).toBe(true);
    });
    await h.withPage(html(""), {}, async (s) => {
      expect(await s.evaluate(query("(prefers-color-scheme: dark)"))).toBe(false);
      expect(await s.evaluate(query("(prefers-reduced-motion: reduce)"))).toBe(false);
      expect(await s.evaluate(query("screen"))).toBe(true);
    });
  });

  h.check("the viewport has the requested size and device scale factor", async () => {
    await h.withPage(html(""), { width: 640, height: 480, deviceScaleFactor: 2 }, async (s) => {
      expect(await s.evaluate("() => [innerWidth, innerHeight, devicePixelRatio]")).toEqual([640, 480, 2]);
    });
  });
}
