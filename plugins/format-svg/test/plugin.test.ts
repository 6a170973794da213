import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer, FORMATTER, parseOptions, type Renderer } from "@renderkit/core";
import { CORE_OPTIONS } from "@renderkit/core/internal";
import { SvgFormatter, svgFormat } from "@renderkit/format-svg";
import { afterEach, describe, expect, it } from "vitest";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function renderer(plugin: ReturnType<typeof svgFormat>): Promise<Renderer> {
  const dataDir = await mkdtemp(join(tmpdir(), "rk-format-svg-"));
  const made = await createRenderer({ plugins: [plugin], dataDir, logger: new ConsoleLogger("silent") });
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  cleanup.push(() => made.close());
  return made;
}

describe("svgFormat", () => {
  it("registers the svg format in the renderer's own container", async () => {
    const r = await renderer(svgFormat());
    expect(r.formats).toContain("svg");
    const registered: SvgFormatter[] = [];
    await svgFormat().register({
      provide: (token: unknown, value: SvgFormatter) => token === FORMATTER && registered.push(value),
    } as never);
    expect(registered[0]?.formats).toEqual([
      { format: "svg", contentType: "image/svg+xml", extension: "svg", requires: ["pdf"] },
    ]);
    expect(registered[0]?.pageSettings()).toEqual({ media: "screen" });
  });

  it("adds svg_method (pdf | dom), defaulting to the plugin's defaultMethod", () => {
    const parse = (formatter: SvgFormatter, input: Record<string, unknown>) =>
      parseOptions(
        { url: "https://example.com", format: "svg", ...input },
        { table: { ...CORE_OPTIONS, ...formatter.options }, formats: ["svg"] },
      ).options;
    const pdfFirst = new SvgFormatter({ defaultMethod: "pdf", pdftocairo: "pdftocairo", pdftocairoTimeoutMs: 60_000 });
    const domFirst = new SvgFormatter({ defaultMethod: "dom", pdftocairo: "pdftocairo", pdftocairoTimeoutMs: 60_000 });
    expect(pdfFirst.options.svgMethod).toMatchObject({ type: "enum", values: ["pdf", "dom"], default: "pdf" });
    expect(domFirst.options.svgMethod).toMatchObject({ default: "dom" });
    expect(parse(pdfFirst, { svg_method: "dom" }).svgMethod).toBe("dom");
    expect(parse(pdfFirst, { svgMethod: "PDF" }).svgMethod).toBe("pdf");
    expect(() => parse(pdfFirst, { svg_method: "png" })).toThrow(/svg_method/);
  });

  it("refuses bad options when the factory is called", () => {
    expect(() => svgFormat({ defaultMethod: "raster" as never })).toThrow(/defaultMethod/);
    expect(() => svgFormat({ pdftocairoTimeoutMs: 10 })).toThrow(/pdftocairoTimeoutMs/);
  });
});
