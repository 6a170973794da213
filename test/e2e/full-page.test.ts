import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RenderResult } from "@renderkit/core";
import { MAX_TOTAL_PIXELS } from "@renderkit/core/page";
import { type FixtureServer, RecordingLogger, startFixtureServer } from "@renderkit/core/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureBounds, SECTION_PIXELS } from "../../core/dist/page/capture-limits.js";
import { BANDS, BLANK, fullPageRoutes, INNER, LAZY, type Rgb } from "../fixtures/full-page-pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { type Decoded, decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

const run = promisify(execFile);

/** Every page of a PDF rasterised at `dpi`, as one RGB pixel buffer per page. */
async function pdfPages(result: RenderResult, dpi = 12): Promise<Buffer[]> {
  const { stdout } = await run("pdftoppm", ["-r", String(dpi), "-png", fileURLToPath(result.renderUrl)], {
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  // pdftoppm writes the pages' PNGs one after the other; split at each PNG signature.
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const pngs: Buffer[] = [];
  for (let at = stdout.indexOf(signature); at >= 0; ) {
    const next = stdout.indexOf(signature, at + 1);
    pngs.push(stdout.subarray(at, next < 0 ? undefined : next));
    at = next;
  }
  return Promise.all(pngs.map((png) => sharp(png).removeAlpha().raw().toBuffer()));
}

/** Whether some pixel of `pages` is `colour` within `tolerance` per channel. */
function hasColour(pages: Buffer[], colour: Rgb, tolerance = 6): boolean {
  return pages.some((px) => {
    for (let i = 0; i + 2 < px.length; i += 3) {
      if (
        Math.abs((px[i] ?? 0) - colour[0]) <= tolerance &&
        Math.abs((px[i + 1] ?? 0) - colour[1]) <= tolerance &&
        Math.abs((px[i + 2] ?? 0) - colour[2]) <= tolerance
      ) {
        return true;
      }
    }
    return false;
  });
}

describe("capture bounds (pure)", () => {
  it("cuts at max_height, at the total pixel cap and at the caller's limit", () => {
    expect(captureBounds({ width: 1280, height: 40_000 }, 1, 20_000)).toEqual({ width: 1280, height: 20_000, truncated: true });
    expect(captureBounds({ width: 1280, height: 15_000 }, 1, 20_000)).toEqual({ width: 1280, height: 15_000, truncated: false });
    const capped = captureBounds({ width: 4000, height: 60_000 }, 4, 60_000);
    expect(capped.truncated).toBe(true);
    expect(capped.width * 4 * capped.height * 4).toBeLessThanOrEqual(MAX_TOTAL_PIXELS);
    expect(captureBounds({ width: 640, height: 40_000 }, 2, 40_000, { maxPixelHeight: 16_383 })).toMatchObject({
      height: 8191,
      truncated: true,
    });
  });
});

forEachEngine((engine) => {
  let fixture: FixtureServer;
  let started: TestRenderer;
  /** Keeps what the renderer logs (the pre-scroll's report among it). */
  const logger = new RecordingLogger();
  /** Checks of engine-independent code (core preparation, option checks, stitching and encoding): one engine only. */
  const once = onOneEngine(engine);

  beforeAll(async () => {
    fixture = await startFixtureServer(await fullPageRoutes());
    started = await startRenderer([`127.0.0.1:${fixture.port}`], { logger }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (path: string, options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}${path}`, ...options });

  /** Renders and returns the result, the decoded image and the image indices requested meanwhile. */
  async function renderLazy(path: string, options: Record<string, unknown>) {
    const before = fixture.requests.length;
    const result = await render(path, { ...LAZY.viewport, full_page: true, ...options });
    const requested = new Set(
      fixture.requests
        .slice(before)
        .filter((r) => r.path.startsWith("/img?"))
        .map((r) => Number(new URL(r.path, fixture.url).searchParams.get("i"))),
    );
    return { result, requested };
  }

  function expectLazyImages(image: Decoded): void {
    for (let i = 0; i < LAZY.count; i++) {
      const { x, y } = LAZY.centre(i);
      expectColour(image, x, y, LAZY.colour(i), { tolerance: 0 });
    }
  }

  describe("lazy-load pre-scroll", () => {
    // Both engines: the pre-scroll drives each engine's evaluate, and the capture is its screenshot.
    it("full_page requests every lazy and IntersectionObserver image and paints each at its place", async () => {
      const { result, requested } = await renderLazy("/lazy", {});
      expect(requested.size).toBe(LAZY.count);
      const image = await decodeRender(result);
      expect([image.width, image.height]).toEqual([LAZY.viewport.width, LAZY.count * LAZY.rowHeight]);
      expectLazyImages(image);
    });

    // Both engines: with page scripts off, nothing in the page may wait on its own timers.
    it("with disable_js the pre-scroll still reaches the bottom; native lazy images load, scripted ones cannot", async () => {
      const { result, requested } = await renderLazy("/lazy", { disable_js: true });
      const scrolled = logger.at("debug", "pre-scroll").find((e) => e.fields.renderId === result.renderId);
      expect(scrolled?.fields.reached).toBeGreaterThanOrEqual(LAZY.count * LAZY.rowHeight);
      expect(scrolled?.fields.steps).toBeGreaterThan(1);
      const image = await decodeRender(result);
      for (let i = 0; i < LAZY.count; i++) {
        const { x, y } = LAZY.centre(i);
        const native = i % 2 === 0;
        expect(requested.has(i), `image ${i} requested`).toBe(native);
        expectColour(image, x, y, native ? LAZY.colour(i) : LAZY.placeholder, { tolerance: 0 });
      }
    });

    once("skip_scroll leaves the far images unpainted (control)", async () => {
      const { result, requested } = await renderLazy("/lazy", { skip_scroll: true });
      expect(requested.size).toBeLessThan(LAZY.count);
      const image = await decodeRender(result);
      const { x, y } = LAZY.centre(LAZY.far);
      expectColour(image, x, y, LAZY.placeholder, { tolerance: 0 });
    });

    once("works when the page sets overflow: hidden on html", async () => {
      const { result, requested } = await renderLazy("/lazy-locked", {});
      expect(requested.size).toBe(LAZY.count);
      expectLazyImages(await decodeRender(result));
    });

    once("scrolls an inner scroller when the document itself does not scroll", async () => {
      const { requested } = await renderLazy("/inner-lazy", {});
      expect(requested.size).toBe(INNER.count);
    });

    once("a PDF of the lazy page contains every image; with skip_scroll it misses some (control)", async () => {
      const full = await pdfPages((await renderLazy("/lazy", { format: "pdf" })).result);
      for (let i = 0; i < LAZY.count; i++) expect(hasColour(full, LAZY.colour(i)), `image ${i} in the PDF`).toBe(true);
      const control = await pdfPages((await renderLazy("/lazy", { format: "pdf", skip_scroll: true })).result);
      expect(hasColour(control, LAZY.colour(LAZY.far))).toBe(false);
    });

    once("pre-scrolls only as far as the output reaches: webp's 16383 px at dpr 2; a thumb of it scrolls it all", async () => {
      // At dpr 2, webp holds 8,191 CSS px of the 15,200 px page.
      const reach = Math.floor(16_383 / 2);
      const { result, requested } = await renderLazy("/lazy", { format: "webp", device_scale_factor: 2 });
      expect(result).toMatchObject({ height: 2 * reach, truncated: true });
      expect(requested.has(LAZY.far)).toBe(false);
      const image = await decodeRender(result);
      for (let i = 0; i < LAZY.count; i++) {
        const { x, y } = LAZY.centre(i);
        if (y + LAZY.height / 2 > reach) continue;
        expect(requested.has(i), `image ${i} is in the output`).toBe(true);
        expectColour(image, 2 * x, 2 * y, LAZY.colour(i), { tolerance: 24 });
      }
      const thumb = await renderLazy("/lazy", { format: "webp", device_scale_factor: 2, thumb_width: LAZY.viewport.width / 2 });
      // The whole page, 600 device px wide, scaled to 150: a quarter of its 30,400 device px.
      expect(thumb.result).toMatchObject({
        width: LAZY.viewport.width / 2,
        height: (LAZY.count * LAZY.rowHeight) / 2,
        truncated: false,
      });
      expect(thumb.requested.size).toBe(LAZY.count);
    });

    once("accepts scroll_increment and scroll_delay and refuses them out of range", async () => {
      // An increment above the viewport height would step over IntersectionObserver images.
      const { requested } = await renderLazy("/lazy", { scroll_increment: 300, scroll_delay: 0 });
      expect(requested.size).toBe(LAZY.count);
      for (const [option, value] of [
        ["scroll_increment", 99],
        ["scroll_increment", 2001],
        ["scroll_delay", -1],
        ["scroll_delay", 5001],
      ] as const) {
        const error = await expectRenderError(render("/lazy", { full_page: true, [option]: value }), "InvalidOptions");
        expect(error.details).toMatchObject({ option });
      }
    });
  });

  describe("tall pages in sections", () => {
    /** Checks the band colour at the centre and just below the top of every band down to `height`. */
    function expectBands(image: Decoded, height: number, { scale = 1, tolerance = 0 } = {}): void {
      const x = (BANDS.viewport.width / 2) * scale;
      expectColour(image, x, 10 * scale, BANDS.header, { tolerance });
      for (let top = BANDS.bandHeight; top < height; top += BANDS.bandHeight) {
        // Just below each band's top: the fixed header must not repeat anywhere but at the top.
        expectColour(image, x, (top + 10) * scale, BANDS.at(top), { tolerance });
        expectColour(image, x, (top + BANDS.bandHeight / 2) * scale, BANDS.at(top + BANDS.bandHeight / 2), { tolerance });
      }
      // Around every section boundary.
      for (let y = SECTION_PIXELS / scale; y < height; y += SECTION_PIXELS / scale) {
        expectColour(image, x, (y - 1) * scale, BANDS.at(y - 1), { tolerance });
        expectColour(image, x, y * scale, BANDS.at(y), { tolerance });
      }
    }

    const tall = { ...BANDS.viewport, full_page: true };
    /**
     * The format variants check how sections are captured, stitched and encoded, not the lazy-load
     * pre-scroll (the page has nothing lazy; the png checks below keep it): they skip its steps.
     */
    const tallNoScroll = { ...tall, skip_scroll: true };
    const centre = BANDS.viewport.width / 2;

    // Both engines: each engine's clip screenshots beyond the viewport make the sections.
    it("png: max_height 40000 stitches the whole page down to its last band", async () => {
      const result = await render("/bands", { ...tall, max_height: 40_000 });
      expect(result).toMatchObject({ width: BANDS.viewport.width, height: BANDS.total, truncated: false });
      expect(result.blank).toBeUndefined();
      const image = await decodeRender(result);
      expect([image.format, image.width, image.height]).toEqual(["png", BANDS.viewport.width, BANDS.total]);
      expectBands(image, BANDS.total);
      expectColour(image, 5, BANDS.total - 1, BANDS.last, { tolerance: 0 });
    });

    it("png: the default max_height (20000) cuts the page there and says truncated", async () => {
      const result = await render("/bands", tall);
      expect(result).toMatchObject({ height: 20_000, truncated: true });
      const image = await decodeRender(result);
      expect(image.height).toBe(20_000);
      expectBands(image, 20_000);
      expectColour(image, 5, 19_999, BANDS.at(19_999), { tolerance: 0 });
    });

    once("jpg: one JPEG of the stitched 40000 px page", async () => {
      const result = await render("/bands", { ...tallNoScroll, format: "jpg", max_height: 40_000 });
      expect(result).toMatchObject({ height: BANDS.total, truncated: false });
      const image = await decodeRender(result);
      expect([image.format, image.height]).toEqual(["jpeg", BANDS.total]);
      expectBands(image, BANDS.total, { tolerance: 24 });
      expectColour(image, centre, BANDS.total - 4, BANDS.last, { tolerance: 24 });
    });

    once("webp: cut at the encoder's 16383 px and truncated", async () => {
      const result = await render("/bands", { ...tallNoScroll, format: "webp", max_height: 40_000 });
      expect(result).toMatchObject({ height: 16_383, truncated: true });
      const image = await decodeRender(result);
      expect([image.format, image.height]).toEqual(["webp", 16_383]);
      expectBands(image, 16_000, { tolerance: 24 });
    });

    once("device_scale_factor 2: sections of device pixels, stitched at twice the size", async () => {
      const result = await render("/bands", { ...tallNoScroll, device_scale_factor: 2, max_height: 12_000 });
      expect(result).toMatchObject({ width: BANDS.viewport.width * 2, height: 24_000, truncated: true });
      expectBands(await decodeRender(result), 12_000, { scale: 2 });
    });

    once("a thumb of the stitched page keeps the bands in place", async () => {
      const thumb = BANDS.viewport.width / 10;
      const result = await render("/bands", { ...tallNoScroll, max_height: 40_000, thumb_width: thumb });
      expect(result).toMatchObject({ width: thumb, height: BANDS.total / 10, truncated: false });
      const image = await decodeRender(result);
      for (const y of [1500, 9500, 20_500, 39_500]) expectColour(image, thumb / 2, y / 10, BANDS.at(y), { tolerance: 8 });
    });
  });

  describe("blank captures", () => {
    const small = BLANK.viewport;

    // Both engines: what counts as visible content is read from each engine's page.
    it("a flat capture of a page with visible content (a blank canvas, white text) says blank", async () => {
      for (const path of ["/blank-canvas", "/blank-text"]) {
        const result = await render(path, small);
        expect(result.blank, path).toBe(true);
        const image = await decodeRender(result);
        expectColour(image, BLANK.point.x, BLANK.point.y, [255, 255, 255], { tolerance: 0 });
      }
    });

    // Issue 34 changed this on purpose: an empty or single-colour page's output is one colour, so it is blank.
    once("no blank flag for content; a single-colour page or a page really empty is blank", async () => {
      const normal = await render("/normal", small);
      expect(normal).not.toHaveProperty("blank");
      expect(normal.truncated).toBe(false);
      for (const path of ["/empty", "/single-colour"]) {
        const result = await render(path, small);
        expect(result.blank, path).toBe(true);
        expect(result.truncated, path).toBe(false);
      }
    });

    once("a page painted only after the first capture is captured again, not blank", async () => {
      const result = await render("/reveal-on-check", small);
      expect(result).not.toHaveProperty("blank");
      expectColour(await decodeRender(result), BLANK.point.x, BLANK.point.y, BLANK.content, { tolerance: 0 });
    });

    // Captures sharp converts, and png with optimize_for_speed, are encoded for speed: a flat
    // capture takes 0.018 B/px opaque and 0.023 transparent, four times the usual (a transparent
    // one this tall was above the bound for the usual encoding).
    it("a blank page captured for speed says blank too: webp, png optimize_for_speed, transparent", async () => {
      const cases = [
        { format: "webp" },
        { format: "webp", transparent: true },
        { optimize_for_speed: true },
        { optimize_for_speed: true, transparent: true },
      ];
      for (const options of cases) {
        const result = await render("/blank-canvas-clear", { width: 1280, height: 4000, ...options });
        expect(result.blank, JSON.stringify(options)).toBe(true);
      }
    });

    once("full_page of a blank page says blank too", async () => {
      const result = await render("/blank-text", { ...small, full_page: true });
      expect(result.blank).toBe(true);
    });
  });
});
