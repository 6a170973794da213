// Playwright vs Puppeteer through the library: same page, png, renders/s and latency side by side (one run, ratios).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 24);
const LEVELS = (process.env.BENCH_ENGINE_CONCURRENCY ?? "1,2").split(",").map(Number);
const ENGINES = { playwright, puppeteer };
const PAGE = `<!doctype html><title>bench</title><style>body{font-family:sans-serif;margin:40px}</style>
<h1>renderkit bench</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p><table>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</table>
<script>document.body.insertAdjacentHTML('beforeend','<p id=js>built by script</p>')</script>`;

export async function benchEngines() {
  const { server, url } = await serveHtml(PAGE);
  const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
  const results = {};
  try {
    for (const [i, c] of LEVELS.entries()) {
      // Alternate which engine goes first, so a drift in machine load does not favour one.
      const order = i % 2 === 0 ? ["playwright", "puppeteer"] : ["puppeteer", "playwright"];
      for (const name of order) {
        const renderer = await createRenderer({
          plugins: [ENGINES[name](), imageFormats()],
          dataDir,
          concurrency: c,
          allowPrivateNetworks: [new URL(url).host],
          logger: new ConsoleLogger("silent"),
        });
        const render = () => renderer.render({ url, format: "png" });
        await measure(c * 2, c, render); // warm-up: launch and first renders
        results[`${name}/${c}`] = await measure(N, c, render);
        await renderer.close();
      }
    }
  } finally {
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const rows = LEVELS.map((c) => {
    const pw = results[`playwright/${c}`];
    const pp = results[`puppeteer/${c}`];
    return {
      c,
      "playwright r/s": pw.rps.toFixed(2),
      "puppeteer r/s": pp.rps.toFixed(2),
      "pptr/pw": (pp.rps / pw.rps).toFixed(2),
      "playwright p50/p95 ms": `${pw.p50.toFixed(0)} / ${pw.p95.toFixed(0)}`,
      "puppeteer p50/p95 ms": `${pp.p50.toFixed(0)} / ${pp.p95.toFixed(0)}`,
    };
  });
  return `Engines (library, png 1280x1024, ${N} renders per cell; pptr/pw > 1: Puppeteer faster)\n${table(rows, Object.keys(rows[0]))}`;
}
