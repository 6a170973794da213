// SVG renders: the library's two methods (svg_method pdf and dom) against a raw playwright-core
// loop doing the same Chromium PDF → pdftocairo conversion (one run, medians and ratios).

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import { svgFormat } from "@renderkit/format-svg";
import { chromium } from "playwright-core";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 12);
const run = promisify(execFile);
const PAGE = `<!doctype html><title>bench</title><style>body{font-family:sans-serif;margin:40px}
header{height:100px;background:linear-gradient(90deg,#1e3c72,#e96443)}</style>
<header></header><h1>renderkit svg bench</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p>
<ul><li>one</li><li><a href="#">two</a></li></ul><table>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</table>
<script>document.body.insertAdjacentHTML('beforeend','<p id=js>built by script</p>')</script>`;

export async function benchSvg() {
  const { server, url } = await serveHtml(PAGE);
  const viewport = { width: 1280, height: 1024 };
  const rows = [];

  // The same steps as svg_method=pdf for a viewport capture: screen media, one page of 1280×1024
  // px (multiples of 8: exact in Chromium), page 1 to SVG in a private temporary directory.
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  let rawBytes = 0;
  const raw = async () => {
    const ctx = await browser.newContext({ viewport });
    const dir = await mkdtemp(join(tmpdir(), "renderkit-bench-svg-"));
    try {
      const page = await ctx.newPage();
      await page.emulateMedia({ media: "screen" });
      await page.goto(url, { waitUntil: "load" });
      const pdf = await page.pdf({ width: "1280px", height: "1024px", printBackground: true, pageRanges: "1" });
      await writeFile(join(dir, "page.pdf"), pdf);
      await run("pdftocairo", ["-svg", "-f", "1", "-l", "1", join(dir, "page.pdf"), join(dir, "page.svg")]);
      rawBytes = (await readFile(join(dir, "page.svg"))).length;
    } finally {
      await rm(dir, { recursive: true, force: true });
      await ctx.close();
    }
  };
  const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
  try {
    await measure(2, 1, raw);
    rows.push({ loop: "raw pdf → pdftocairo", ...(await measure(N, 1, raw)), bytes: rawBytes });
    const renderer = await createRenderer({
      plugins: [playwright(), imageFormats(), svgFormat()],
      dataDir,
      allowPrivateNetworks: [new URL(url).host],
      logger: new ConsoleLogger("silent"),
    });
    try {
      for (const [loop, options] of [
        ["renderkit svg (pdf)", { format: "svg", svg_method: "pdf" }],
        ["renderkit svg (dom)", { format: "svg", svg_method: "dom" }],
        ["renderkit png (reference)", { format: "png" }],
      ]) {
        let bytes = 0;
        const lib = async () => {
          const result = await renderer.render({ url, ...viewport, ...options });
          bytes = (await stat(result.path)).size;
        };
        await measure(2, 1, lib);
        rows.push({ loop, ...(await measure(N, 1, lib)), bytes });
      }
    } finally {
      await renderer.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const base = rows[0];
  const out = rows.map((r) => ({
    loop: r.loop,
    "p50 ms": r.p50.toFixed(0),
    "p95 ms": r.p95.toFixed(0),
    KB: (r.bytes / 1024).toFixed(0),
    "p50 vs raw": (r.p50 / base.p50).toFixed(2),
  }));
  return `SVG (1280x1024 viewport, ${N} renders per row, concurrency 1)\n${table(out, Object.keys(out[0]))}`;
}
