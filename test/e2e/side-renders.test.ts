import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../helpers/errors.js";
import { forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

let site: Server;
let base: string;

const ARTICLE = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Le titre</title>
<meta name="description" content="Une description">
<meta name="author" content="Ada Lovelace">
<meta property="og:title" content="OG title"><meta property="og:type" content="article">
<meta property="og:image" content="/img/cover.png"><meta property="og:site_name" content="Le Journal">
<meta property="article:published_time" content="2026-11-01T10:00:00Z">
<meta name="twitter:card" content="summary_large_image"><meta name="twitter:site" content="@journal">
<link rel="canonical" href="/articles/42"><link rel="icon" href="/static/fav.png">
</head><body><h1>Article</h1><p class="rel"><a href="/next">next</a></p>
<script>document.body.insertAdjacentHTML("beforeend", "<p id=built>built by script</p>")</script></body></html>`;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === "/moved") {
      res.writeHead(302, { location: "/article" });
      return res.end();
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(ARTICLE);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

const read = (url: unknown) => readFileSync(fileURLToPath(String(url)), "utf8");

forEachEngine((engine) => {
  let rk: TestRenderer;
  beforeAll(async () => {
    rk = await startRenderer([new URL(base).host], {}, engine);
  });
  afterAll(() => rk?.close());

  describe("html format", () => {
    it("is the rendered DOM as a standalone document: script output kept, scripts removed, a base address", async () => {
      const result = await rk.renderer.render({ url: `${base}/article`, format: "html" });
      expect(result.contentType).toBe("text/html; charset=utf-8");
      const html = read(result.renderUrl);
      expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
      expect(html).toContain('<p id="built">built by script</p>');
      expect(html).not.toContain("<script");
      expect(html).toContain(`<base href="${base}/article">`);
      expect(html).toContain('<meta charset="utf-8">');
    });
  });

  describe("metadata", () => {
    it("reports the page's metadata, with the requested and resolved addresses of a redirect", async () => {
      const result = await rk.renderer.render({ url: `${base}/moved`, metadata: true });
      expect(result.metadata).toEqual({
        urlRequested: `${base}/moved`,
        urlResolved: `${base}/article`,
        statusCode: 200,
        title: "Le titre",
        description: "Une description",
        lang: "fr",
        charset: "UTF-8",
        canonical: `${base}/articles/42`,
        favicon: `${base}/static/fav.png`,
        author: "Ada Lovelace",
        publisher: "Le Journal",
        date: "2026-11-01T10:00:00Z",
        image: `${base}/img/cover.png`,
        ogTitle: "OG title",
        ogType: "article",
        ogImage: `${base}/img/cover.png`,
        ogSiteName: "Le Journal",
        twitterCard: "summary_large_image",
        twitterSite: "@journal",
      });
      expect(result.metadataUrl).toBeUndefined();
    });

    it("keeps a page's metadata within bounds: 2,048 characters a value, 100 og/twitter fields", async () => {
      const html = `<title>${"t".repeat(5_000)}</title><script>
        for (let i = 0; i < 500; i++) {
          const m = document.createElement("meta");
          m.setAttribute("property", "og:k" + i);
          m.setAttribute("content", "v".repeat(100_000));
          document.head.appendChild(m);
        }</script>`;
      const result = await rk.renderer.render({ html, metadata: true });
      const metadata = result.metadata as Record<string, string | null>;
      expect(metadata.title).toHaveLength(2_048);
      const extra = Object.keys(metadata).filter((key) => key.startsWith("og"));
      expect(extra).toHaveLength(100);
      expect(Math.max(...extra.map((key) => (metadata[key] ?? "").length))).toBe(2_048);
      expect(JSON.stringify(metadata).length).toBeLessThan(300_000);
    });

    it("falls back sensibly on a page without metadata", async () => {
      const result = await rk.renderer.render({ html: "<p>bare</p>", metadata: true });
      expect(result.metadata).toMatchObject({ urlRequested: null, title: null, description: null, canonical: null, image: null });
    });
  });

  describe("side renders", () => {
    it("save_html and save_metadata store files beside any format and add their addresses", async () => {
      const result = await rk.renderer.render({ url: `${base}/article`, format: "png", save_html: true, save_metadata: true });
      expect(result.htmlUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}\\.html$`));
      expect(read(result.htmlUrl)).toContain("built by script");
      expect(result.metadataUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}\\.json$`));
      expect(JSON.parse(read(result.metadataUrl)).title).toBe("Le titre");
      expect((result.metadata as { ogTitle: string }).ogTitle).toBe("OG title");
    });

    it("save_html on an html render points at the render itself", async () => {
      const result = await rk.renderer.render({ url: `${base}/article`, format: "html", save_html: true });
      expect(result.htmlUrl).toBe(result.renderUrl);
    });

    it("save_markdown without a markdown format is refused up front", async () => {
      await expectRenderError(rk.renderer.render({ url: `${base}/article`, save_markdown: true }), "InvalidOptions");
    });
  });
});
