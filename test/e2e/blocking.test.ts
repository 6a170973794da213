import type { RenderResult } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AD_HOST, ASSET, BLOCKING_ROUTES, BLOCKING_VIEWPORT, type BlockingCell, cellCentre } from "../fixtures/blocking-pages.js";
import { COLOUR } from "../fixtures/pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { type Decoded, decodeRender, expectColour, readRender } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/** Resolves every `.test` name to the fixture server's address (the "ad server" is a name there). */
const lookup = async (host: string) => {
  if (host.endsWith(".test")) return [{ address: "127.0.0.1", family: 4 as const }];
  throw new Error(`${host} does not resolve in this test`);
};

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let fixture: FixtureServer;
  let started: TestRenderer;
  let runs = 0;

  beforeAll(async () => {
    fixture = await startFixtureServer(BLOCKING_ROUTES);
    started = await startRenderer([`127.0.0.1:${fixture.port}`], { lookup }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  /** One render of the blocking page with its own `run` token. */
  interface Run {
    result: RenderResult;
    /** Whether the fixture server received a request for `path` from this render. */
    requested(path: string, host?: string): boolean;
  }

  async function render(options: Record<string, unknown> = {}): Promise<Run> {
    const token = `${engine}-${++runs}`;
    const result = await started.renderer.render({
      url: `${fixture.url}/blocking?run=${token}`,
      ...BLOCKING_VIEWPORT,
      ...options,
    });
    const requested = (path: string, host = `127.0.0.1:${fixture.port}`) =>
      fixture.requests.some((r) => {
        const [p, query] = r.path.split("?");
        return p === path && new URLSearchParams(query).get("run") === token && r.headers.host === host;
      });
    return { result, requested };
  }

  /** Asserts the colour in the middle of each named cell. */
  function expectCells(image: Decoded, cells: Partial<Record<BlockingCell, readonly [number, number, number]>>): void {
    for (const [cell, colour] of Object.entries(cells) as [BlockingCell, readonly [number, number, number]][]) {
      const { x, y } = cellCentre(cell);
      expectColour(image, x, y, colour);
    }
  }

  const adHost = () => `${AD_HOST}:${fixture.port}`;
  const { green, white, red } = COLOUR;

  /*
   * Whether a request leaves the browser depends on the engine (its request filter and how it names
   * resource kinds): two renders per engine check every block option at once, and disable_js runs
   * on both. The core's logic (pattern semantics, the page exempt, option errors, other formats)
   * and the control render are checked once, on one engine (`onOneEngine`).
   */
  once("without blocking, every request of the page goes through (the control the other checks compare with)", async () => {
    const run = await render({ wait_for: "#requests-done" });
    expectCells(await decodeRender(run.result), {
      hostImage: green,
      pathImage: green,
      okImage: green,
      styled: green,
      externalScript: green,
      inlineScript: green,
      adScript: green,
      fetched: green,
      xhr: green,
    });
    expect(run.requested(ASSET.hostImage, adHost())).toBe(true);
    expect(run.requested(ASSET.frame)).toBe(true);
    // Fonts and media may be fetched after the load event.
    await expect.poll(() => run.requested(ASSET.font), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => run.requested(ASSET.video), { timeout: 10_000 }).toBe(true);
  });

  describe("resource types and block_urls", () => {
    it("block_images, block_scripts, block_frames, block_fetch and block_media: those requests never leave the browser, the others do", async () => {
      const run = await render({
        block_images: true,
        block_scripts: true,
        block_frames: true,
        block_fetch: true,
        block_media: true,
        wait_for: "#requests-done",
      });
      expectCells(await decodeRender(run.result), {
        // block_images: every image.
        hostImage: white,
        pathImage: white,
        okImage: white,
        // block_scripts: external scripts do not run, inline ones do.
        externalScript: white,
        adScript: white,
        inlineScript: green,
        // block_fetch fails fetch() but not XMLHttpRequest.
        fetched: red,
        xhr: green,
        // Style sheets are not blocked.
        styled: green,
      });
      expect(run.requested(ASSET.hostImage, adHost())).toBe(false);
      for (const path of [ASSET.pathImage, ASSET.okImage, ASSET.script, ASSET.adScript, ASSET.frame, ASSET.fetch]) {
        expect(run.requested(path), path).toBe(false);
      }
      // block_media (the alias of block_medias): the video.
      expect(run.requested(ASSET.video)).toBe(false);
      for (const path of [ASSET.xhr, ASSET.style]) expect(run.requested(path), path).toBe(true);
    });

    it("block_urls host and path patterns, block_styles, block_fonts, block_medias and block_xhr: those requests never leave the browser, the others do", async () => {
      const run = await render({
        // A host pattern (that host and its subdomains, case-insensitively) and a path pattern with wildcards.
        block_urls: ["BLOCKED.test", "*/ads/*"],
        block_styles: true,
        block_fonts: true,
        block_medias: true,
        block_xhr: true,
        wait_for: "#requests-done",
      });
      expectCells(await decodeRender(run.result), {
        // block_urls: the ad host's image, the image and the script under /ads/, nothing else.
        hostImage: white,
        pathImage: white,
        adScript: white,
        okImage: green,
        externalScript: green,
        inlineScript: green,
        // block_styles: the style sheet.
        styled: white,
        // block_xhr fails XMLHttpRequest but not fetch().
        xhr: red,
        fetched: green,
      });
      expect(run.requested(ASSET.hostImage, adHost())).toBe(false);
      for (const path of [ASSET.pathImage, ASSET.adScript, ASSET.style, ASSET.font, ASSET.video, ASSET.xhr]) {
        expect(run.requested(path), path).toBe(false);
      }
      for (const path of [ASSET.okImage, ASSET.script, ASSET.frame, ASSET.fetch]) expect(run.requested(path), path).toBe(true);
    });
  });

  once("block_urls: a wildcard host pattern blocks the subdomains only; no pattern blocks the page itself", async () => {
    // `*/blocking*` matches the page's own address (and nothing the page loads).
    const run = await render({ block_urls: ["*.blocked.test", "*/blocking*"] });
    expectCells(await decodeRender(run.result), { hostImage: white, okImage: green, inlineScript: green });
    expect(run.requested("/blocking")).toBe(true);
    expect(run.requested(ASSET.hostImage, adHost())).toBe(false);
    expect(run.requested(ASSET.okImage)).toBe(true);
  });

  once("block_urls: malformed patterns are refused at parse time, naming the option", async () => {
    for (const pattern of ["ftp://example.com/*", "has space.com", "", "/no-host"]) {
      const error = await expectRenderError(
        Promise.resolve().then(() => started.renderer.parse({ url: fixture.url, block_urls: [pattern] })),
        "InvalidOptions",
      );
      expect(error.details).toMatchObject({ option: "block_urls" });
      expect(error.message).toContain("block_urls");
    }
  });

  describe("disable_js", () => {
    it("runs none of the page's scripts", async () => {
      const run = await render({ disable_js: true });
      expectCells(await decodeRender(run.result), { inlineScript: white, externalScript: white, okImage: green });
    });

    once("the html snapshot shows that no script ran", async () => {
      const html = (await readRender(await render({ disable_js: true, format: "html" }).then((r) => r.result))).toString();
      expect(html).toContain('id="inlineScript"');
      expect(html).not.toContain('data-inline="ran"');
    });

    once("is refused with js at parse time (a 400 before queueing)", async () => {
      const input = { url: `${fixture.url}/blocking`, disable_js: true, js: "document.title = 'x'" };
      const error = await expectRenderError(
        Promise.resolve().then(() => started.renderer.parse(input)),
        "InvalidOptions",
      );
      expect(error.details).toMatchObject({ option: "js" });
      await expectRenderError(started.renderer.render(input), "InvalidOptions");
    });
  });

  once("pdf: blocked requests never leave the browser, the others do", async () => {
    const run = await render({ format: "pdf", block_urls: [`http://127.0.0.1:${fixture.port}/ads/*`] });
    expect(run.result.contentType).toBe("application/pdf");
    expect(run.requested(ASSET.pathImage)).toBe(false);
    expect(run.requested(ASSET.adScript)).toBe(false);
    expect(run.requested(ASSET.okImage)).toBe(true);
  });

  once("html: a blocked image is never requested and its script never ran", async () => {
    const run = await render({ format: "html", block_images: true, block_urls: "*/ads/*" });
    const html = (await readRender(run.result)).toString();
    expect(html).toContain('data-inline="ran"');
    expect(html).toMatch(/id="externalScript" style="[^"]*background/);
    expect(html).not.toMatch(/id="adScript" style="[^"]*background/);
    expect(run.requested(ASSET.okImage)).toBe(false);
    expect(run.requested(ASSET.adScript)).toBe(false);
    expect(run.requested(ASSET.script)).toBe(true);
  });
});
