import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createRenderer, type Logger, type Renderer, type RenderResult } from "@renderkit/core";
import { expectRenderError, type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { markdownFormat } from "@renderkit/format-markdown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

let site: FixtureServer;
let renderer: Renderer;
let dataDir: string;
/** Called when the formatter starts converting in Node (the debug line it logs just before). */
let onNodeConvert: (() => void) | undefined;
const logger: Logger = {
  debug: (message) => {
    if (message === "converting markdown in node") onNodeConvert?.();
  },
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

beforeAll(async () => {
  site = await startFixtureServer({
    "/notes/features.html": fixture("features.html"),
    // A page that breaks a built-in the in-page converter needs: the HTML is converted in Node instead.
    "/notes/broken.html": fixture("features.html").replace(
      "<head>",
      "<head><script>Array.from = () => { throw new Error('broken by the page'); };</script>",
    ),
    "/news/harbour": fixture("article.html"),
    "/landing": fixture("landing.html"),
    "/notice": fixture("notice.html"),
    "/layouts/blog-divs": fixture("blog-divs.html"),
    "/layouts/docs": fixture("docs.html"),
    "/layouts/forum": fixture("forum.html"),
    "/media/page": `<!doctype html><html lang="en"><title>media</title><body>
      <p>Photo: <img src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" data-src="lazy/photo.jpg" alt="Lazy photo"></p>
      <p>Pixel:<img src="/pixel.png" alt="tracker"> <img srcset="small.png 1x, large.png 2x" alt="Chosen"></p>
      <div class="promo"><p>PROMO-SHOULD-BE-HIDDEN</p></div><p>after</p></body></html>`,
    "/pixel.png": { headers: { "content-type": "image/png" }, body: Buffer.from(PIXEL, "base64") },
  });
  dataDir = await mkdtemp(join(tmpdir(), "rk-format-markdown-"));
  renderer = await createRenderer({
    // A busy machine converts slower: the test raises the Node conversion limit (default 30 s).
    plugins: [playwright(), markdownFormat({ nodeConvertTimeoutMs: 600_000 })],
    dataDir,
    allowPrivateNetworks: [`127.0.0.1:${site.port}`],
    logger,
  });
});

afterAll(async () => {
  await renderer?.close();
  await site?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function markdown(options: Record<string, unknown>): Promise<{ result: RenderResult; md: string }> {
  const result = await renderer.render({ format: "md", ...options });
  expect(result.path, "the default storage is on this machine").toBeDefined();
  return { result, md: await readFile(result.path!, "utf8") };
}

describe("md format (real Chromium)", () => {
  it("registers md with its option, in the renderer's own container", () => {
    expect(renderer.formats).toContain("md");
    expect(renderer.optionTable.mdMainContent).toMatchObject({ type: "boolean", default: false });
  });

  it("converts the rendered page: tables, nested lists, absolute links, code, strikethrough, script output", async () => {
    const { result, md } = await markdown({ url: `${site.url}/notes/features.html` });
    expect(result).toMatchObject({ format: "md", contentType: "text/markdown; charset=utf-8" });
    expect(result.path!.endsWith(".md")).toBe(true);
    expect(result.size).toBe(Buffer.byteLength(md));

    expect(md.startsWith("# Release notes\n\n")).toBe(true);
    expect(md).toContain("| Engine | Formats | Launch ms |\n| --- | --- | --: |\n| Playwright | png, pdf | 227 |\n");
    expect(md).toContain("| Puppeteer | png \\| webp | 505 |");
    expect(md).toContain("- Install\n  - apt packages\n    1. chromium\n    2. ffmpeg\n  - npm packages\n- Run");
    expect(md).toContain(`[the guide](${site.url}/notes/docs/guide.html)`);
    expect(md).toContain(`[the changelog](${site.url}/changelog#v2)`);
    expect(md).toContain(`![Project logo](${site.url}/notes/img/logo.png)`);
    expect(md).toContain("[external](https://example.org/x)");
    expect(md).toContain("```typescript\nconst renderer = await createRenderer({ plugins: [playwright()] });\n\nawait renderer");
    expect(md).toContain("~~drops~~ ~~removes~~");
    expect(md).toContain(`## Built by script\n\nSCRIPT-BUILT-CONTENT with a [relative link](${site.url}/notes/built/link).`);
    for (const leak of ["TITLE-SHOULD", "STYLE-SHOULD", "INLINE_SCRIPT", "NOSCRIPT-SHOULD", "TEMPLATE-SHOULD", "HIDDEN-SHOULD"]) {
      expect(md).not.toContain(leak);
    }
    expect(md).not.toMatch(/\n\n\n/);
  });

  it("uses lazy images' real address and the browser's srcset choice, drops tracking pixels and what hide_selector hides", async () => {
    const { md } = await markdown({ url: `${site.url}/media/page`, hide_selector: ".promo" });
    expect(md).toBe(
      `Photo: ![Lazy photo](${site.url}/media/lazy/photo.jpg)\n\nPixel: ![Chosen](${site.url}/media/small.png)\n\nafter\n`,
    );
  });

  it("gives the same markdown when the page broke the in-page converter (converted in Node)", async () => {
    const [normal, broken] = await Promise.all([
      markdown({ url: `${site.url}/notes/features.html` }),
      markdown({ url: `${site.url}/notes/broken.html` }),
    ]);
    expect(broken.md).toBe(normal.md);
  });

  it("converting in Node runs off the main thread: a page built to make turndown slow stalls nothing else", async () => {
    // Deep nesting times many lines is quadratic in turndown: about a second of conversion here.
    const html = `<body><script>Array.prototype.reduce = function () { throw 0 }; let p = document.body;
      for (let i = 0; i < 200; i++) { const b = document.createElement("blockquote"); p.appendChild(b); p = b }
      p.innerHTML = "x<br>".repeat(2500)</script></body>`;
    // The share of the conversion the main thread's event loop spent busy rather than waiting: a
    // ratio, so a slower machine changes both sides. Converting on the main thread keeps it busy
    // for the whole conversion (0.97 measured); a worker leaves it idle (0.003).
    let start: ReturnType<typeof performance.eventLoopUtilization> | undefined;
    onNodeConvert = () => {
      start = performance.eventLoopUtilization();
    };
    try {
      const { md } = await markdown({ html });
      expect(start, "the page broke the in-page converter, so Node converted it").toBeDefined();
      const busy = performance.eventLoopUtilization(start).utilization;
      expect(md.split("\n").filter((line) => /^(> )+x\s*$/.test(line)).length).toBeGreaterThan(2_400);
      expect(busy).toBeLessThan(0.5);
    } finally {
      onNodeConvert = undefined;
    }
  }, 300_000);

  it("keeps the whole page by default: navigation, sidebar and footer included", async () => {
    const { md } = await markdown({ url: `${site.url}/news/harbour` });
    expect(md).toContain("NAV-News");
    expect(md).toContain("SIDEBAR-1");
    expect(md).toContain("FOOTER-COPYRIGHT");
    expect(md).toContain("ARTICLE-LEAD");
  });

  it("md_main_content keeps only the article, under its title", async () => {
    const { md } = await markdown({ url: `${site.url}/news/harbour`, md_main_content: true });
    expect(md.startsWith("# Harbour reopens after a year of repairs\n\n")).toBe(true);
    for (const kept of ["ARTICLE-LEAD", "ARTICLE-MIDDLE", "ARTICLE-END", "## Businesses return", "> We are back"]) {
      expect(md).toContain(kept);
    }
    for (const boilerplate of ["NAV-", "SIDEBAR-", "FOOTER-", "RELATED-", "COMMENT-", "We use cookies", "Sign up"]) {
      expect(md).not.toContain(boilerplate);
    }
  });

  it("md_main_content keeps a short notice on a small page, titled by its only h1", async () => {
    const { md } = await markdown({ url: `${site.url}/notice`, md_main_content: 1 });
    expect(md).toBe(
      "# Office closed on Monday\n\nMUST-1 The council office will be closed on Monday 5 May for the bank holiday. Bins will be collected as usual.\n\nMUST-2 For emergencies call the out-of-hours number.\n",
    );
  });

  // The layouts of the README's measurement: MUST- text must stay, the other marked text must go
  // (on the forum, a list of links without an article, everything stays).
  it.each([
    ["blog-divs", "Tuning Postgres autovacuum - Bob's blog", true], // no h1: Readability's title, kept whole as it is short
    ["docs", "Array.prototype.flat()", true],
    ["forum", "", false],
  ])("md_main_content on a %s layout", async (page, title, article) => {
    const source = fixture(`${page}.html`);
    const { md } = await markdown({ url: `${site.url}/layouts/${page}`, md_main_content: true });
    const markers = [...new Set(source.match(/\b[A-Z]+(?:-[A-Z]+)*-[A-Za-z0-9]+/g))];
    for (const marker of markers) expect(md.includes(marker), marker).toBe(!article || marker.startsWith("MUST-"));
    if (title) expect(md.startsWith(`# ${title}\n\n`)).toBe(true);
  });

  it("md_main_content falls back to the whole body on a page without an article", async () => {
    const { md } = await markdown({ url: `${site.url}/landing`, mdMainContent: "true" });
    expect(md.startsWith("[Acme]")).toBe(true);
    for (const part of [
      "LANDING-NAV-Pricing",
      "# LANDING-HERO",
      "LANDING-CARD-1",
      "LANDING-CARD-2",
      "LANDING-CARD-3",
      "LANDING-FOOTER",
    ]) {
      expect(md).toContain(part);
    }
  });

  it("converts only the selector's element, and refuses an invalid selector as an option error", async () => {
    const { md } = await markdown({ url: `${site.url}/notes/features.html`, selector: "table" });
    expect(md).toBe(
      "| Engine | Formats | Launch ms |\n| --- | --- | --: |\n| Playwright | png, pdf | 227 |\n| Puppeteer | png \\| webp | 505 |\n",
    );
    const error = await expectRenderError(
      renderer.render({ url: `${site.url}/landing`, format: "md", selector: "[[" }),
      "InvalidOptions",
    );
    expect(error.message).toContain("selector");
  });
});
