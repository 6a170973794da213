import { readFile } from "node:fs/promises";
import { checkViewportPixels } from "@renderkit/core/page";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SHOT_PIXELS } from "../../core/dist/page/capture-limits.js";
import { CLOSED_PORT } from "../helpers/closed-port.js";
import { expectRenderError } from "../helpers/errors.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/forward-proxy.js";
import { decodeRender } from "../helpers/image.js";
import { forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/*
 * Issue 14, finding 6: answers of 5xx where the caller is at fault. Each is now a clear error with
 * a spec code, on both engines: a redirect to `view-source:` or `javascript:` and a redirect loop
 * are `InvalidURLError` (400), a viewport too large for one screenshot is `InvalidOptions` (400)
 * before any browser work, a full page that large is taken in sections, an endlessly growing page
 * is stopped, captured as one moment and cut (`truncated`), and the caller's unreachable or
 * refusing proxy is `ProxyError` (502). The server's statuses: server/test/security-errors.test.ts.
 */

const SMALL = { width: 400, height: 300 };

/**
 * A page that never stops growing: every animation frame adds 20 rows of 100 px (left half) and
 * paints the background (right half) in a new colour, a frame counter in its red and green; a
 * timer adds rows too. A capture whose sections were taken at different moments shows different
 * colours in them (each screenshot paints at least one new frame).
 */
const GROWING = `<!doctype html><body style="margin:0"><div id="rows" style="width:50%"></div><script>
  let n = 0;
  const rows = document.getElementById("rows");
  const add = (count) => {
    for (let i = 0; i < count; i++) {
      const row = document.createElement("div");
      row.style.height = "100px";
      row.style.background = i % 2 ? "#000" : "#fff";
      rows.appendChild(row);
    }
  };
  (function frame() {
    n++;
    document.body.style.background = "rgb(" + (n % 256) + "," + (Math.floor(n / 256) % 256) + ",200)";
    add(20);
    requestAnimationFrame(frame);
  })();
  (function tick() {
    add(5);
    setTimeout(tick, 0);
  })();
</script></body>`;

/** A 4,000 px square page: at device_scale_factor 4, a 16,000 × 16,000 px full-page capture. */
const SQUARE = `<!doctype html><body style="margin:0;height:4000px;background:linear-gradient(#f00,#00f)"></body>`;

/** What `fn` threw (undefined when it did not). */
function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("finding 6: the pixel cap of one screenshot (pure)", () => {
  it("a 16000 px square viewport is refused naming device_scale_factor; one at the cap is not", () => {
    expect(thrown(() => checkViewportPixels({ width: 4000, height: 4000, deviceScaleFactor: 4 }))).toMatchObject({
      code: "InvalidOptions",
      details: { option: "device_scale_factor" },
    });
    // 8,192 × 8,192 device px exactly (4,096 px at 2): allowed; one row more is not.
    expect(MAX_SHOT_PIXELS).toBe(8_192 * 8_192);
    expect(() => checkViewportPixels({ width: 4096, height: 4096, deviceScaleFactor: 2 })).not.toThrow();
    expect(thrown(() => checkViewportPixels({ width: 4096, height: 4097, deviceScaleFactor: 2 }))).toMatchObject({
      code: "InvalidOptions",
    });
    // Full pages and clips are taken in sections: not refused here.
    expect(() => checkViewportPixels({ width: 4000, height: 4000, deviceScaleFactor: 4, fullPage: true })).not.toThrow();
    expect(() => checkViewportPixels({ width: 4000, height: 4000, deviceScaleFactor: 4, clip: "0,0,10,10" })).not.toThrow();
  });
});

forEachEngine((engine) => {
  let site: FixtureServer;
  let proxy: ForwardProxy;
  const dead = CLOSED_PORT;
  let started: TestRenderer;
  const render = (options: Record<string, unknown>) => started.renderer.render({ ...SMALL, ...options });

  beforeAll(async () => {
    site = await startFixtureServer({
      "/page": `<!doctype html><body><p>page</p></body>`,
      "/view-source": (_req, res) => void res.writeHead(302, { location: `view-source:${site.url}/page` }).end(),
      "/javascript": (_req, res) => void res.writeHead(302, { location: "javascript:alert(document.domain)" }).end(),
      "/loop": (_req, res, url) => {
        const n = Number(url.searchParams.get("n") ?? 0) + 1;
        res.writeHead(302, { location: `/loop?n=${n}` }).end();
      },
      "/no-content": (_req, res) => void res.writeHead(204).end(),
      "/attachment": (_req, res) =>
        void res
          .writeHead(200, { "content-type": "text/plain", "content-disposition": 'attachment; filename="a.txt"' })
          .end("file"),
      "/zip": (_req, res) => void res.writeHead(200, { "content-type": "application/zip" }).end("PK\x03\x04"),
      "/hop": `<!doctype html><head><meta http-equiv="refresh" content="0;url=/landed"></head><body><p>HOPPING</p></body>`,
      "/landed": `<!doctype html><body><p>LANDED</p></body>`,
      "/growing": GROWING,
      "/square": SQUARE,
    });
    proxy = await startForwardProxy("user:secret");
    const allow = [site.port, proxy.port, dead].map((port) => `127.0.0.1:${port}`);
    started = await startRenderer(allow, {}, engine);
  });
  afterAll(async () => {
    await started?.close();
    await proxy?.close();
    await site?.close();
  });

  describe("finding 6: 5xx where the caller is at fault", () => {
    it("a redirect to view-source: or javascript: is InvalidURLError naming it, and is not followed", async () => {
      const viewSource = await expectRenderError(render({ url: `${site.url}/view-source` }), "InvalidURLError");
      expect(viewSource.message).toBe(
        `The page redirected to an address that is not http or https (view-source:${site.url}/page)`,
      );
      const script = await expectRenderError(render({ url: `${site.url}/javascript` }), "InvalidURLError");
      expect(script.message).toContain("(javascript:alert(document.domain))");
      expect(site.requestsTo("/view-source")).toHaveLength(1);
      expect(site.requestsTo("/page")).toHaveLength(0);
    });

    it("an answer that is no page (204, a download) is InvalidURLError saying so", async () => {
      const empty = await expectRenderError(render({ url: `${site.url}/no-content` }), "InvalidURLError");
      expect(empty.message).toBe("The address answered 204 with no content: there is no page to render");
      const attachment = await expectRenderError(render({ url: `${site.url}/attachment` }), "InvalidURLError");
      expect(attachment.message).toBe("The address is a download (Content-Disposition: attachment), not a page to render");
      const zip = await expectRenderError(render({ url: `${site.url}/zip` }), "InvalidURLError");
      expect(zip.message).toBe("The address is a download (application/zip), not a page to render");
      // A page that loads is still a page.
      expect((await render({ url: `${site.url}/page` })).width).toBe(SMALL.width);
    });

    // Reading the DOM is made again on the new document. (A screenshot or MHTML snapshot asked for
    // while the page swaps documents can still hang in Chromium until the timeout: docs/reliability.md.)
    it("a page that navigates itself as it loads renders its html: the read is made again on the new document", async () => {
      for (let i = 0; i < 6; i++) {
        const result = await render({ url: `${site.url}/hop?i=${i}`, format: "html", wait_until: "loaded" });
        expect(await readFile(result.path ?? "", "utf8")).toMatch(/HOPPING|LANDED/);
      }
    });

    it("a redirect loop is InvalidURLError: too many redirects (20), after 20 redirect answers", async () => {
      const error = await expectRenderError(render({ url: `${site.url}/loop` }), "InvalidURLError");
      expect(error.message).toBe("The address could not be loaded: too many redirects (20)");
      expect(site.requestsTo("/loop")).toHaveLength(20);
    });

    it("a 16000 × 16000 px viewport is refused before any browser work: InvalidOptions naming device_scale_factor", async () => {
      const before = site.requests.length;
      const error = await expectRenderError(
        render({ url: `${site.url}/page`, width: 4000, height: 4000, device_scale_factor: 4 }),
        "InvalidOptions",
      );
      expect(error.details?.option).toBe("device_scale_factor");
      expect(error.message).toContain("16000×16000 px capture (256,000,000 px)");
      expect(site.requests.length).toBe(before);
    });

    it("a 16000 × 16000 px full page is captured in sections, whole", async () => {
      const result = await render({
        url: `${site.url}/square`,
        width: 4000,
        height: 4000,
        device_scale_factor: 4,
        full_page: true,
      });
      expect(result).toMatchObject({ width: 16_000, height: 16_000, truncated: false });
      const image = await decodeRender(result);
      expect([image.width, image.height]).toEqual([16_000, 16_000]);
      // The gradient runs from red at the top to blue at the bottom, across both sections.
      expect(image.at(8000, 8)[0]).toBeGreaterThan(200);
      expect(image.at(8000, 15_990)[2]).toBeGreaterThan(200);
    }, 240_000);

    it("an endlessly growing page is stopped, captured as one moment and cut at max_height: truncated", async () => {
      const result = await render({
        url: `${site.url}/growing`,
        width: 800,
        height: 600,
        full_page: true,
        skip_scroll: true,
        delay: 2_000,
      });
      expect(result).toMatchObject({ width: 800, height: 20_000, truncated: true });
      const image = await decodeRender(result);
      // Three sections (8,192 px, 8,192 px, the rest): the same background in all, so the same moment.
      const colours = [100, 8_300, 16_500, 19_900].map((y) => image.at(700, y).join(","));
      expect(new Set(colours).size, colours.join(" | ")).toBe(1);
    }, 120_000);

    it("an unreachable proxy is ProxyError (502), and so is a proxy refusing the credentials", async () => {
      const down = await expectRenderError(render({ url: `${site.url}/page`, proxy: `127.0.0.1:${dead}` }), "ProxyError");
      expect(down.message).toBe(`The proxy 127.0.0.1:${dead} could not be reached (ECONNREFUSED)`);
      const before = site.requestsTo("/page").length;
      const refused = await expectRenderError(
        render({ url: `${site.url}/page`, proxy: `user:wrong@127.0.0.1:${proxy.port}` }),
        "ProxyError",
      );
      expect(refused.message).toContain(`through the proxy 127.0.0.1:${proxy.port}: the proxy refused the credentials (407)`);
      expect(site.requestsTo("/page")).toHaveLength(before);
    });
  });
});
