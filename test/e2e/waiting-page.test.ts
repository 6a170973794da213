import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConsoleLogger,
  createRenderer,
  ENGINE,
  type Engine,
  type PluginManifest,
  RenderError,
  type RenderEvent,
} from "@renderkit/core";
import { imageFormats } from "@renderkit/format-image";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookup, PAINT, type PageSite, startPageSite } from "../fixtures/waiting-pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

let site: PageSite;
beforeAll(async () => {
  site = await startPageSite();
});
afterAll(() => site?.close());

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let rk: TestRenderer;
  beforeAll(async () => {
    rk = await startRenderer([`127.0.0.1:${site.port}`], { lookup }, engine);
  });
  afterAll(() => rk?.close());
  const render = (path: string, options: Record<string, unknown> = {}) =>
    rk.renderer.render({ url: `${site.url}${path}`, width: 400, height: 300, ...options });

  describe("wait_for_state / wait_to_leave_state", () => {
    it("wait_for_state attached: an element in the DOM but never shown is enough", async () => {
      const image = await decodeRender(
        await render("/attach", { wait_for: "#late", wait_for_state: "attached", fail_if_selector_missing: true }),
      );
      expectColour(image, 200, 150, PAINT.blue);
    });

    it("wait_for_state visible (the default) does not take a hidden element", async () => {
      const error = await expectRenderError(
        render("/attach", { wait_for: "#late", wait_timeout: 1_000, fail_if_selector_missing: true }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toBe('wait_for: "#late" did not appear within 1000 ms');
    });

    it("wait_to_leave_state detached waits for the element to be removed, not only hidden", async () => {
      const image = await decodeRender(
        await render("/leave?remove", { wait_to_leave: "#spinner", wait_to_leave_state: "detached" }),
      );
      expectColour(image, 200, 150, PAINT.green);
    });

    it("wait_to_leave_state detached fails on an element that is hidden but stays", async () => {
      const error = await expectRenderError(
        render("/leave", {
          wait_to_leave: "#spinner",
          wait_to_leave_state: "detached",
          wait_timeout: 1_000,
          fail_if_selector_missing: true,
        }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toBe('wait_to_leave: "#spinner" was still in the page after 1000 ms');
      // The default (hidden) takes the same page.
      const image = await decodeRender(await render("/leave", { wait_to_leave: "#spinner", fail_if_selector_missing: true }));
      expectColour(image, 200, 150, PAINT.yellow);
    });
  });

  describe("skip_wait_for_images", () => {
    // The lazy image sits at y 1500..1700 of a full-page capture; the server holds it back 6 s.
    it("a full-page capture does not wait for the lazy image the pre-scroll started", async () => {
      const image = await decodeRender(await render("/lazy-image?skip", { full_page: true, skip_wait_for_images: true }));
      expect(image.height).toBe(2000);
      expectColour(image, 100, 1600, PAINT.white);
    });

    once("control: without it the capture waits for the image and shows it", async () => {
      const image = await decodeRender(await render("/lazy-image?wait", { full_page: true }));
      expectColour(image, 100, 1600, PAINT.red);
    });
  });

  describe("global_timeout", () => {
    it("a render that would run for 30 s fails when global_timeout runs out, without a retry", async () => {
      const events: RenderEvent[] = [];
      const off = rk.renderer.on((event) => events.push(event));
      try {
        const error = await expectRenderError(
          render("/attach", { js: "await new Promise(() => {})", global_timeout: 3_000 }),
          "RenderTimeoutError",
        );
        expect(error.message).toBe("The render did not finish within global_timeout (3000 ms)");
        const started = events.filter((e) => e.type === "render.started");
        expect(started).toHaveLength(1);
        expect(events.some((e) => e.type === "render.retrying")).toBe(false);
      } finally {
        off();
      }
      // The renderer carries on (waiting for `#late`, so the page has turned blue whatever the load).
      const next = await render("/attach", { wait_for: "#late", wait_for_state: "attached", global_timeout: 60_000 });
      expectColour(await decodeRender(next), 10, 10, PAINT.blue);
    });
  });

  once("selector with pdf, thumbs on pdf, transparent with jpg, a wait state without its selector", () => {
    const refused = (options: Record<string, unknown>, option: string, text: RegExp) => {
      let error: unknown;
      try {
        rk.renderer.parse({ url: site.url, ...options });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RenderError);
      expect(error).toMatchObject({ code: "InvalidOptions", details: { option } });
      expect((error as Error).message).toMatch(text);
    };
    refused(
      { format: "pdf", selector: "#x" },
      "selector",
      /^Option selector cannot be used with format pdf: a PDF prints the whole document/,
    );
    refused({ format: "pdf", thumb_width: 200 }, "thumb_width", /resizes images only/);
    refused({ format: "jpg", transparent: true }, "transparent", /needs a format with transparency/);
    refused({ format: "png", pdf_margin_top: "1cm" }, "pdf_margin_top", /applies to format pdf only/);
    refused({ format: "jpg", pdf_show_footer: true }, "pdf_show_footer", /applies to format pdf only/);
    refused({ wait_for_state: "attached" }, "wait_for_state", /needs wait_for/);
    refused({ wait_to_leave_state: "detached" }, "wait_to_leave_state", /needs wait_to_leave/);
    refused({ wait_for: "#x", wait_for_state: "hidden" }, "wait_for_state", /must be one of attached, visible/);
    refused({ highlight: "fox", highlightbg: "red;}" }, "highlightbg", /must be a CSS colour/);
    refused({ block_url_keywords: ["ads", " "] }, "block_url_keywords", /must not be empty/);
    // The same with png, camelCase spelling, is fine.
    expect(rk.renderer.parse({ url: site.url, selector: "#x", waitFor: "#x", waitForState: "attached" }).ignored).toEqual([]);
  });
});

describe("block_ads without usable filter lists", () => {
  it("a renderer with no list configured refuses block_ads with a 400 before queueing", async () => {
    const rk = await startRenderer([`127.0.0.1:${site.port}`], { adblock: { lists: [], refreshSeconds: 3600 } });
    try {
      let error: unknown;
      try {
        rk.renderer.parse({ url: site.url, block_ads: true });
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "InvalidOptions", details: { option: "block_ads" } });
      expect((error as Error).message).toBe(
        "Option block_ads cannot be used: this server has no ad filter lists configured (adblock.lists)",
      );
      expect(rk.renderer.parse({ url: site.url, block_ads: false }).options.blockAds).toBe(false);
    } finally {
      await rk.close();
    }
  });
});

/**
 * An engine whose every page fails after `ms` with a retryable error (a browser that keeps
 * crashing): the renderer's retry loop with no browser in the way.
 */
function crashingEngine(ms: number): PluginManifest {
  const engine: Engine = {
    name: "crashing",
    capabilities: new Set(["screenshot", "pdf", "content"]),
    start: async () => {},
    open: (_target, _settings, signal) =>
      new Promise((_resolve, reject) => {
        const timer = setTimeout(
          () => reject(new RenderError("EngineResponseNotOkError", "The browser went away", { retryable: true })),
          ms,
        );
        signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }),
    stats: () => ({ browsers: 0, pages: 0, launches: 0 }),
    close: async () => {},
  };
  return { name: "crashing-engine", register: ({ container }) => void container.register(ENGINE, { useValue: engine }) };
}

describe("global_timeout spans every attempt", () => {
  it("retries run inside the same budget: the third attempt is cut by global_timeout", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "renderkit-global-timeout-"));
    const renderer = await createRenderer({
      plugins: [crashingEngine(1_000), imageFormats()],
      dataDir,
      logger: new ConsoleLogger("silent"),
      maxAttempts: 3,
    });
    const events: RenderEvent[] = [];
    renderer.on((event) => events.push(event));
    try {
      const control = await expectRenderError(renderer.render({ html: "<p>x</p>" }), "EngineResponseNotOkError");
      expect(control.message).toBe("The browser went away");
      events.length = 0;
      const error = await expectRenderError(renderer.render({ html: "<p>x</p>", global_timeout: 2_500 }), "RenderTimeoutError");
      expect(error.message).toBe("The render did not finish within global_timeout (2500 ms)");
      expect(events.filter((e) => e.type === "render.started")).toHaveLength(3);
      expect(events.filter((e) => e.type === "render.retrying")).toHaveLength(2);
    } finally {
      await renderer.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
