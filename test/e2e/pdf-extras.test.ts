import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inflateSync } from "node:zlib";
import {
  ConsoleLogger,
  createRenderer,
  ENGINE,
  type Engine,
  type PageSession,
  type PluginManifest,
  type Renderer,
  type RenderResult,
} from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { imageFormats } from "@renderkit/format-image";
import { markdownFormat } from "@renderkit/format-markdown";
import { svgFormat } from "@renderkit/format-svg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../helpers/errors.js";
import { type Decoded, decodeRender, readRender } from "../helpers/image.js";
import { pdfInfo, pdfText } from "../helpers/pdf.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

const run = promisify(execFile);
const pathOf = (result: RenderResult) => fileURLToPath(result.renderUrl);

/** Two pages: `Alpha chapter` (with `Beta section` under it) on page 1, `Gamma chapter` on page 2. */
const CHAPTERS = `<!doctype html><html lang="en"><head><title>chapters</title></head>
<body style="font-family: 'Liberation Serif'"><h1>Alpha chapter</h1><p>First text.</p><h2>Beta section</h2>
<p>Second text.</p><h1 style="break-before: page">Gamma chapter</h1><p>Last text.</p></body></html>`;

/** DejaVu Serif has `ffi`, `fi` and `fl` ligatures (Liberation has none). The second line never has them. */
const WORDS = "official fifty flow";
const LIGATURES = `<!doctype html><html><body style="margin:0;background:#fff;color:#000;font:80px 'DejaVu Serif'">
<div style="position:absolute;top:0;left:10px;white-space:nowrap">${WORDS}</div>
<div style="position:absolute;top:200px;left:10px;white-space:nowrap;font-variant-ligatures:none">${WORDS}</div></body></html>`;

/**
 * What a PDF says about ligatures, read from its objects: Chromium draws a ligature glyph inside a
 * `/Span <</ActualText (fi)>>` and maps the glyph to U+FB01... in the font's ToUnicode CMap.
 */
async function ligatureGlyphs(result: RenderResult): Promise<{ actualText: string[]; ligatureCodes: boolean }> {
  const bytes = await readFile(pathOf(result));
  const raw = bytes.toString("latin1");
  const streams: string[] = [];
  for (const match of raw.matchAll(/stream\r?\n/g)) {
    const start = (match.index ?? 0) + match[0].length;
    try {
      streams.push(inflateSync(bytes.subarray(start, raw.indexOf("endstream", start))).toString("latin1"));
    } catch {
      // Not a Flate stream (an image, a font program left raw).
    }
  }
  const text = streams.join("\n");
  return {
    actualText: [...text.matchAll(/\/ActualText \(([^)]*)\)/g)].map((m) => m[1] ?? ""),
    ligatureCodes: /<FB0[0-4]>/i.test(text),
  };
}

/** The PDF's outline as poppler reads it (`pdftohtml -xml`): titles, nesting and target pages. */
async function outline(result: RenderResult): Promise<string[]> {
  const { stdout } = await run("pdftohtml", ["-xml", "-stdout", "-i", "-q", pathOf(result)]);
  const entries: string[] = [];
  let depth = -1;
  for (const match of stdout.matchAll(/<outline>|<\/outline>|<item page="(\d+)">([^<]*)<\/item>/g)) {
    if (match[0] === "<outline>") depth++;
    else if (match[0] === "</outline>") depth--;
    else entries.push(`${"  ".repeat(depth)}${match[2]} (p${match[1]})`);
  }
  return entries;
}

/** `pdfinfo`'s `Tagged:` line and the structure tree of `pdfinfo -struct`. */
async function structure(result: RenderResult): Promise<{ tagged: string; tree: string }> {
  const info = await run("pdfinfo", [pathOf(result)]);
  const tree = await run("pdfinfo", ["-struct", pathOf(result)]);
  return { tagged: info.stdout.match(/^Tagged:\s+(\w+)/m)?.[1] ?? "?", tree: tree.stdout };
}

/** Right edge (x of the last dark pixel) of the text between rows `top` and `bottom`. */
function rightEdge(image: Decoded, top: number, bottom: number): number {
  let edge = -1;
  for (let y = top; y < bottom; y++) {
    for (let x = image.width - 1; x > edge; x--) {
      if (image.at(x, y)[0] < 128) {
        edge = x;
        break;
      }
    }
  }
  return edge;
}

/** 5,000 px tall: 25 bands of 200 px, each its own colour with a label. */
const TALL = `<!doctype html><body style="margin:0;font:40px 'Liberation Sans'">${Array.from(
  { length: 25 },
  (_, i) => `<div style="height:200px;background:hsl(${i * 37} 70% 60%)">band ${i}</div>`,
).join("")}</body>`;

/** A plugin whose engine is `inner` under the name `counting`, counting the screenshots its pages take. */
function countingEngine(inner: Engine, count: { screenshots: number }): PluginManifest {
  const engine: Engine = {
    name: "counting",
    capabilities: inner.capabilities,
    start: () => inner.start(),
    stats: () => inner.stats(),
    // The inner engine belongs to another renderer, which closes it.
    close: async () => undefined,
    async open(target, settings, signal) {
      const session = await inner.open(target, settings, signal);
      return new Proxy(session, {
        get(page, property) {
          if (property === "screenshot") {
            return (...args: Parameters<PageSession["screenshot"]>) => {
              count.screenshots++;
              return page.screenshot(...args);
            };
          }
          const value: unknown = Reflect.get(page, property, page);
          return typeof value === "function" ? value.bind(page) : value;
        },
      });
    },
  };
  return { name: "counting-engine", register: ({ container }) => void container.register(ENGINE, { useValue: engine }) };
}

forEachEngine((engine) => {
  let fixture: FixtureServer;
  let started: TestRenderer;
  const once = onOneEngine(engine);

  beforeAll(async () => {
    fixture = await startFixtureServer({ "/chapters": CHAPTERS, "/ligatures": LIGATURES, "/tall": TALL });
    started = await startRenderer([`127.0.0.1:${fixture.port}`], {}, engine, [markdownFormat(), svgFormat()]);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (path: string, options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}${path}`, ...options });

  describe("pdf_outline and pdf_tagged", () => {
    it("by default the PDF has neither an outline nor a structure tree", async () => {
      const result = await render("/chapters", { format: "pdf" });
      expect((await pdfInfo(result)).pages).toBe(2);
      expect(await outline(result)).toEqual([]);
      const { tagged, tree } = await structure(result);
      expect(tagged).toBe("no");
      expect(tree.trim()).toBe("");
      const raw = (await readFile(pathOf(result))).toString("latin1");
      expect(raw).not.toContain("/StructTreeRoot");
      expect(raw).not.toContain("/Outlines");
    });

    it("pdf_tagged gives a structure tree of the headings and paragraphs, and no outline", async () => {
      const result = await render("/chapters", { format: "pdf", pdf_tagged: true });
      const { tagged, tree } = await structure(result);
      expect(tagged).toBe("yes");
      expect(tree.split("\n").map((line) => line.trim().split(" ")[0])).toEqual(
        expect.arrayContaining(["Document", "H1", "H2", "P"]),
      );
      const raw = (await readFile(pathOf(result))).toString("latin1");
      expect(raw).toContain("/StructTreeRoot");
      expect(raw).toMatch(/\/MarkInfo\s*<<[^>]*\/Marked true/);
      expect(await outline(result)).toEqual([]);
      expect(await pdfText(result)).toContain("Gamma chapter");
    });

    it("pdf_outline gives bookmarks from the headings, nested by level, pointing at their pages (and tags the PDF)", async () => {
      const result = await render("/chapters", { format: "pdf", pdf_outline: true });
      expect(await outline(result)).toEqual(["Alpha chapter (p1)", "  Beta section (p1)", "Gamma chapter (p2)"]);
      expect((await structure(result)).tagged).toBe("yes");
    });

    once("are refused where they cannot work: other formats, and an outline without tags", async () => {
      const loads = fixture.requestsTo("/chapters").length;
      const cases: [Record<string, unknown>, string][] = [
        [{ format: "png", pdf_outline: true }, "pdf_outline"],
        [{ format: "svg", pdf_tagged: true }, "pdf_tagged"],
        [{ format: "pdf", pdf_outline: true, pdf_tagged: false }, "pdf_tagged"],
      ];
      for (const [options, option] of cases) {
        const error = await expectRenderError(render("/chapters", options), "InvalidOptions");
        expect(error.details).toEqual({ option });
      }
      // Refused before the page was loaded.
      expect(fixture.requestsTo("/chapters")).toHaveLength(loads);
    });
  });

  describe("disable_ligatures", () => {
    it("pdf: the fi/fl ligature glyphs are gone; the extracted text is the same letters", async () => {
      const plain = await render("/ligatures", { format: "pdf" });
      const before = await ligatureGlyphs(plain);
      // The first line is drawn with ligatures by default (the second never is).
      expect(before.actualText).toEqual(expect.arrayContaining(["fi", "fl"]));
      expect(before.ligatureCodes).toBe(true);
      const off = await render("/ligatures", { format: "pdf", disable_ligatures: true });
      expect(await ligatureGlyphs(off)).toEqual({ actualText: [], ligatureCodes: false });
      const text = await pdfText(off);
      expect(text.match(/official fifty flow/g)).toHaveLength(2);
    });

    it("png: the text is drawn as with font-variant-ligatures: none", async () => {
      const size = { width: 1000, height: 400 };
      const plain = await decodeRender(await render("/ligatures", size));
      // Ligatures are narrower here: the first line ends left of the second.
      expect(rightEdge(plain, 0, 150)).toBeLessThan(rightEdge(plain, 200, 350) - 3);
      const off = await decodeRender(await render("/ligatures", { ...size, disable_ligatures: true }));
      expect(Math.abs(rightEdge(off, 0, 150) - rightEdge(off, 200, 350))).toBeLessThanOrEqual(1);
    });

    once("is refused with md", async () => {
      const error = await expectRenderError(render("/ligatures", { format: "md", disable_ligatures: true }), "InvalidOptions");
      expect(error.message).toContain("disable_ligatures");
    });
  });

  describe("max_section_height", () => {
    let counted: Renderer;
    const count = { screenshots: 0 };
    beforeAll(async () => {
      // Only the counting engine, over the first renderer's browser: no second browser.
      counted = await createRenderer({
        plugins: [countingEngine(started.renderer.engine(), count), imageFormats()],
        dataDir: join(started.dataDir, "counted"),
        allowPrivateNetworks: [`127.0.0.1:${fixture.port}`],
        logger: new ConsoleLogger("silent"),
      });
    });
    afterAll(async () => counted?.close());

    /** Renders `/tall` full page on the counting engine: the PNG's pixels and the screenshots taken. */
    async function tall(
      options: Record<string, unknown>,
    ): Promise<{ width: number; height: number; pixels: Buffer; shots: number }> {
      count.screenshots = 0;
      const result = await counted.render({ url: `${fixture.url}/tall`, full_page: true, ...options });
      const { data, info } = await sharp(await readRender(result))
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, pixels: data, shots: count.screenshots };
    }

    it("takes a tall capture in sections of that height; the image is the same", async () => {
      const whole = await tall({});
      expect([whole.width, whole.height, whole.shots]).toEqual([1280, 5000, 1]);
      const sections = await tall({ max_section_height: 1000 });
      expect([sections.width, sections.height, sections.shots]).toEqual([1280, 5000, 5]);
      expect(sections.pixels.equals(whole.pixels)).toBe(true);
      const uneven = await tall({ max_section_height: 1500 });
      expect(uneven.shots).toBe(4);
      expect(uneven.pixels.equals(whole.pixels)).toBe(true);
    });

    once("is refused where nothing is taken in sections", async () => {
      const cases: Record<string, unknown>[] = [
        { format: "pdf", max_section_height: 2000 },
        { full_page: true, full_page_mode: "native", max_section_height: 2000 },
        { max_section_height: 2000 },
      ];
      for (const options of cases) {
        const error = await expectRenderError(render("/tall", options), "InvalidOptions");
        expect(error.details).toEqual({ option: "max_section_height" });
      }
    });
  });
});
