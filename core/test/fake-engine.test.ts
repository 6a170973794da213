import { AddressPolicy, RenderError } from "@renderkit/core";
import {
  decodePng,
  expectRenderError,
  FakeEngine,
  FIXTURE_BACKGROUND,
  FIXTURE_TEXT,
  makePageSettings,
  pngSize,
} from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";

// The fake engine of `@renderkit/core/testing`: what its pages answer and the faults it plays.
// The formatter suite runs on it in default-formatters-fake.test.ts; the renderer's retries in
// renderer-retry.test.ts.

const ALLOWED = "127.0.0.1:9";
const URL_TARGET = { url: `http://${ALLOWED}/` };
const settings = (overrides = {}) => makePageSettings(new AddressPolicy({ allowPrivate: [ALLOWED] }), overrides);
const signal = () => new AbortController().signal;

/** Width and height of a baseline JPEG, from its SOF0 segment. */
function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  const at = Buffer.from(bytes).indexOf(Buffer.from([0xff, 0xc0]));
  const b = Buffer.from(bytes);
  return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
}

describe("FakeEngine pages", () => {
  it("show the fixture page for a url target, their own HTML for an html target", async () => {
    const engine = new FakeEngine();
    const page = await engine.open(URL_TARGET, settings(), signal());
    expect(page.response).toMatchObject({ url: URL_TARGET.url, status: 200 });
    expect(await page.content()).toContain(FIXTURE_TEXT);
    expect(page.bytesReceived()).toBeGreaterThan(0);
    const own = await engine.open({ html: "<p>own</p>" }, settings(), signal());
    expect(own.response).toEqual({ url: "about:blank" });
    expect(await own.content()).toBe("<p>own</p>");
    expect(own.bytesReceived()).toBe(0);
    expect(engine.stats()).toEqual({ browsers: 1, pages: 2, launches: 1 });
    await engine.close();
    expect(engine.stats()).toEqual({ browsers: 0, pages: 0, launches: 1 });
  });

  it("check a url target against the address policy, as a real engine must", async () => {
    const engine = new FakeEngine();
    await expectRenderError(engine.open({ url: "http://127.0.0.1:10/" }, settings(), signal()), "InvalidURLError");
    expect(engine.stats().pages).toBe(0);
  });

  it("take screenshots as real PNG and JPEG bytes of the size asked, the background away from the text", async () => {
    const engine = new FakeEngine();
    const page = await engine.open(URL_TARGET, settings({ width: 300, height: 200, deviceScaleFactor: 2 }), signal());
    const base = { fullPage: false, omitBackground: false } as const;
    const viewport = await page.screenshot({ ...base, type: "png" });
    expect(pngSize(viewport)).toEqual({ width: 600, height: 400 });
    const image = decodePng(viewport);
    expect(image.pixel(590, 390).slice(0, 3)).toEqual([...FIXTURE_BACKGROUND]);
    expect(image.pixel(40, 40).slice(0, 3)).toEqual([0, 0, 0]);
    const clip = await page.screenshot({ ...base, type: "jpeg", clip: { x: 10, y: 100, width: 50, height: 20 } });
    expect([...clip.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(jpegSize(clip)).toEqual({ width: 100, height: 40 });
  });

  it("print a one-page PDF with the page's text, and take an MHTML snapshot", async () => {
    const engine = new FakeEngine();
    const page = await engine.open({ html: "<h1>Printed &amp; kept</h1>" }, settings(), signal());
    const margin = { top: "0", right: "0", bottom: "0", left: "0" };
    const pdf = Buffer.from(
      await page.pdf({
        width: "8.5in",
        height: "11in",
        landscape: false,
        margin,
        printBackground: true,
        scale: 1,
        displayHeaderFooter: false,
        headerTemplate: "",
        footerTemplate: "",
        preferCSSPageSize: false,
      }),
    ).toString("latin1");
    expect(pdf.startsWith("%PDF-")).toBe(true);
    expect(pdf.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(pdf).toContain("/MediaBox [0 0 612 792]");
    expect(pdf).toContain("(Printed & kept) Tj");
    const mhtml = await page.snapshot?.();
    expect(mhtml).toMatch(/^MIME-Version: 1\.0/m);
    expect(mhtml).toContain("Printed &amp; kept");
  });

  it("answer page scripts through the evaluate option, htmlSnapshot's themselves, and refuse the rest", async () => {
    const engine = new FakeEngine({
      evaluate: (script, arg) => (script === "() => 1 + 1" ? 2 : script === "(x) => x" ? arg : undefined),
    });
    const page = await engine.open(URL_TARGET, settings(), signal());
    expect(await page.evaluate("() => 1 + 1")).toBe(2);
    expect(await page.evaluate("(x) => x", { a: 1 })).toEqual({ a: 1 });
    await expect(page.evaluate("() => document.title")).rejects.toThrow(/runs no page script/);
  });

  it("match simple selectors against the HTML's elements", async () => {
    const engine = new FakeEngine();
    const page = await engine.open({ html: `<div id="a" class="x y"><p class="x">1</p><p>2</p></div>` }, settings(), signal());
    expect(await page.waitForSelector("#a", { state: "attached", timeoutMs: 1 })).toBe(true);
    expect(await page.waitForSelector(".z", { state: "hidden", timeoutMs: 1 })).toBe(true);
    expect(await page.click("p", { all: true, timeoutMs: 1 })).toBe(2);
    expect(await page.click("p.x", { all: false, timeoutMs: 1 })).toBe(1);
    expect(await page.click("div > p", { all: true, timeoutMs: 1 })).toBe(0);
    expect(await page.elementBox("body")).toBeDefined();
    expect(await page.elementBox("#nothing")).toBeUndefined();
  });

  it("report the request's cookies, the document request, and refuse a page over the byte cap", async () => {
    const engine = new FakeEngine();
    const cookies = [{ name: "a", value: "1" }];
    const page = await engine.open(URL_TARGET, settings({ cookies, recordResources: true }), signal());
    expect(await page.cookies?.()).toEqual([
      { name: "a", value: "1", domain: "127.0.0.1", path: "/", expires: -1, httpOnly: false, secure: false },
    ]);
    expect(page.resources?.()?.requests).toMatchObject([{ url: URL_TARGET.url, type: "document", status: 200 }]);
    const capped = await engine.open(URL_TARGET, settings({ egressLimits: { maxBytes: 10, maxConnections: 64 } }), signal());
    expect(() => capped.bytesReceived()).toThrow(RenderError);
  });
});

describe("FakeEngine faults", () => {
  it("error: open() throws, retryable by default, the given error otherwise", async () => {
    const engine = new FakeEngine();
    const struck = engine.inject({ kind: "error" });
    const error = await expectRenderError(engine.open(URL_TARGET, settings(), signal()), "EngineResponseNotOkError");
    expect(error).toMatchObject({ retryable: true });
    await struck;
    engine.inject({ kind: "error", error: new RenderError("InvalidURLError", "refused") });
    expect(await expectRenderError(engine.open(URL_TARGET, settings(), signal()), "InvalidURLError")).toMatchObject({
      retryable: false,
    });
    await expect(engine.open(URL_TARGET, settings(), signal())).resolves.toBeDefined();
  });

  it("crash: the browser dies at the page's first call, every page of it fails, the next open relaunches", async () => {
    const engine = new FakeEngine();
    const other = await engine.open(URL_TARGET, settings(), signal());
    engine.inject({ kind: "crash" });
    const page = await engine.open(URL_TARGET, settings(), signal());
    expect(await expectRenderError(page.documentSize(), "EngineResponseNotOkError")).toMatchObject({ retryable: true });
    await expectRenderError(other.content(), "EngineResponseNotOkError");
    expect(engine.stats()).toMatchObject({ browsers: 0, launches: 1 });
    await engine.open(URL_TARGET, settings(), signal());
    expect(engine.stats()).toMatchObject({ browsers: 1, launches: 2 });
  });

  it("stall: the page answers nothing until it is closed; at open, open() waits for the abort", async () => {
    const engine = new FakeEngine();
    const struck = engine.inject({ kind: "stall" });
    const page = await engine.open(URL_TARGET, settings(), signal());
    const shot = page.screenshot({ type: "png", fullPage: false, omitBackground: false });
    await struck;
    await page.close();
    await expect(shot).rejects.toThrow(/closed/);
    const controller = new AbortController();
    const atOpen = engine.inject({ kind: "stall", at: "open" });
    const opening = engine.open(URL_TARGET, settings(), controller.signal);
    await atOpen;
    controller.abort(new RenderError("RenderTimeoutError", "stalled"));
    await expectRenderError(opening, "RenderTimeoutError");
    expect(engine.stats().pages).toBe(0);
  });
});
