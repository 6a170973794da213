// Markdown: the library's md format vs a raw playwright-core loop (newContext, goto, content(),
// turndown in Node, close). Median and p95 latency and renders/s (one run, ratios).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { markdownFormat } from "@renderkit/format-markdown";
import { chromium } from "playwright-core";
import TurndownService from "turndown";
import { gfm } from "turndown-plugin-gfm";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 24);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? "1,2").split(",").map(Number);
const paragraph = "The harbour reopened on Friday after twelve months of repairs to the sea wall. ".repeat(4);
const PAGE = `<!doctype html><title>bench article</title><style>body{font-family:sans-serif;margin:40px}</style>
<header><nav>${Array.from({ length: 12 }, (_, i) => `<a href="/s${i}">Section ${i}</a>`).join(" ")}</nav></header>
<main><article><h1>renderkit markdown bench</h1>${Array.from({ length: 12 }, (_, i) => `<h2>Part ${i}</h2><p>${paragraph}<a href="rel/${i}">more</a></p>`).join("")}
<table><thead><tr><th>k</th><th>v</th></tr></thead><tbody>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</tbody></table>
<pre><code class="language-js">console.log("hello");</code></pre></article></main>
<aside><h2>Most read</h2><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/n${i}">Story ${i}</a></li>`).join("")}</ul></aside>
<footer><p>© bench</p></footer>
<script>document.querySelector("article").insertAdjacentHTML("beforeend", "<p id=js>built by script</p>")</script>`;

export async function benchMarkdown() {
  const { server, url } = await serveHtml(PAGE);
  const viewport = { width: 1280, height: 1024 };
  const rows = [];
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" }).remove(["script", "style", "title"]);
  turndown.use(gfm);

  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  const raw = async () => {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: "load" });
    turndown.turndown(await page.content());
    await ctx.close();
  };
  const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
  try {
    for (const c of LEVELS) {
      await measure(c * 2, c, raw);
      rows.push({ loop: "raw content() + turndown", c, ...(await measure(N, c, raw)) });
      const renderer = await createRenderer({
        plugins: [playwright(), markdownFormat()],
        dataDir,
        concurrency: c,
        allowPrivateNetworks: [new URL(url).host],
        logger: new ConsoleLogger("silent"),
      });
      for (const [loop, extra] of [
        ["renderkit md", {}],
        ["renderkit md_main_content", { md_main_content: true }],
      ]) {
        const lib = () => renderer.render({ url, format: "md", ...extra });
        await measure(c * 2, c, lib);
        rows.push({ loop, c, ...(await measure(N, c, lib)) });
      }
      await renderer.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const raws = new Map(rows.filter((r) => r.loop.startsWith("raw")).map((r) => [r.c, r]));
  const out = rows.map((r) => ({
    loop: r.loop,
    c: r.c,
    "renders/s": r.rps.toFixed(2),
    "p50 ms": r.p50.toFixed(0),
    "p95 ms": r.p95.toFixed(0),
    "p50 vs raw": (r.p50 / raws.get(r.c).p50).toFixed(2),
  }));
  return `Markdown (md of a ${Math.round(PAGE.length / 1024)} KB article page, ${N} renders per row)\n${table(out, Object.keys(out[0]))}`;
}
