// Library vs raw playwright-core loops: renders/s and latency at concurrency 1, 2, 4 (one run, ratios).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import { chromium } from "playwright-core";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 24);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? "1,2,4").split(",").map(Number);
const PAGE = `<!doctype html><title>bench</title><style>body{font-family:sans-serif;margin:40px}</style>
<h1>renderkit bench</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p><table>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</table>
<script>document.body.insertAdjacentHTML('beforeend','<p id=js>built by script</p>')</script>`;

export async function benchScreenshots() {
  const { server, url } = await serveHtml(PAGE);
  const viewport = { width: 1280, height: 1024 };
  const rows = [];

  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  const fresh = async () => {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: "load" });
    await page.screenshot({ type: "png" });
    await ctx.close();
  };
  const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
  try {
    for (const c of LEVELS) {
      await measure(c * 2, c, fresh);
      rows.push({ loop: "raw fresh context", c, ...(await measure(N, c, fresh)) });
      const ctx = await browser.newContext({ viewport });
      const pages = await Promise.all(Array.from({ length: c }, () => ctx.newPage()));
      const reuse = async (w) => {
        await pages[w].goto(url, { waitUntil: "load" });
        await pages[w].screenshot({ type: "png" });
      };
      await measure(c * 2, c, reuse);
      rows.push({ loop: "raw reused pages", c, ...(await measure(N, c, reuse)) });
      await ctx.close();
      const renderer = await createRenderer({
        plugins: [playwright(), imageFormats()],
        dataDir,
        concurrency: c,
        allowPrivateNetworks: [new URL(url).host],
        logger: new ConsoleLogger("silent"),
      });
      const lib = () => renderer.render({ url, format: "png" });
      await measure(c * 2, c, lib);
      rows.push({ loop: "renderkit library", c, ...(await measure(N, c, lib)) });
      await renderer.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const byKey = (loop, c) => rows.find((r) => r.loop === loop && r.c === c);
  const out = rows.map((r) => ({
    loop: r.loop,
    c: r.c,
    "renders/s": r.rps.toFixed(2),
    "p50 ms": r.p50.toFixed(0),
    "p95 ms": r.p95.toFixed(0),
    "vs fresh": (r.rps / byKey("raw fresh context", r.c).rps).toFixed(2),
    "vs reused": (r.rps / byKey("raw reused pages", r.c).rps).toFixed(2),
  }));
  return `Screenshots (png 1280x1024, ${N} renders per row)\n${table(out, Object.keys(out[0]))}`;
}
