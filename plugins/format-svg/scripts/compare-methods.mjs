#!/usr/bin/env node
// Measures the two SVG methods on a few fixture pages, through the library: time of the format
// step (the renderer's "render phases" log, so page loading is left out), size, <text> count and
// the share of pixels that differ from the PNG render of the same page (SVG rasterised by librsvg
// through sharp, pixelmatch threshold 0.1). Prints the README's table.
//   node plugins/format-svg/scripts/compare-methods.mjs [runs]      (after `npm run build`)
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRenderer } from "@renderkit/core";
import { startFixtureServer } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import { svgFormat } from "@renderkit/format-svg";
import pixelmatch from "pixelmatch";
import sharp from "sharp";

const RUNS = Number(process.argv[2] ?? 5);

const PAGES = {
  // Blocks, cards, a linear gradient, a list with bullets and a link: an ordinary page.
  report: `<!doctype html><style>body{margin:0;font-family:"Liberation Sans",sans-serif;background:#f4f6fb;color:#123}
header{height:120px;background:linear-gradient(90deg,#1e3c72,#2a5298 50%,#e96443);color:#fff;padding:24px;box-sizing:border-box}
.row{display:flex;gap:24px;padding:32px}.card{flex:1;background:#fff;border-radius:12px;padding:20px;border:2px solid #c5d0e6}
.block{width:160px;height:90px;background:#e96443;display:inline-block;margin-right:16px}footer{padding:32px;font-size:14px}</style>
<header><h1>Quarterly report</h1><div>Generated for renderkit</div></header><div class="row">
<div class="card"><h2>Revenue</h2><p>Revenue grew by twelve percent compared with the same period last year.</p><ul><li>Subscriptions</li><li><a href="#">Licensing</a></li></ul></div>
<div class="card"><h2>Costs</h2><p>Costs stayed flat after the migration.</p><div class="block"></div></div>
<div class="card"><h2>Outlook</h2><p>We expect steady growth.</p></div></div>
<footer>${"Footer text with several words to wrap across the page. ".repeat(60)}</footer>`,
  // Long text: serif paragraphs, quotes, code, a table (3,800 px tall).
  article: `<!doctype html><style>body{margin:40px auto;max-width:760px;font-family:"Liberation Serif",serif;line-height:1.5;color:#222}
blockquote{border-left:4px solid #999;margin:0;padding-left:16px;color:#555}td,th{border:1px solid #aaa;padding:4px 8px}code{background:#eee}</style>
<h1>A long article</h1>${Array.from({ length: 14 }, (_, i) => `<h2>Section ${i + 1}</h2><p>${"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ".repeat(5)}<code>code()</code></p><blockquote>Quote ${i + 1}.</blockquote>`).join("")}
<table>${"<tr><td>alpha</td><td>1</td></tr>".repeat(10)}</table>`,
  // CSS effects: radial gradient, shadow, rotation, opacity, dashed border, inline SVG, decorations, emoji.
  effects: `<!doctype html><style>body{margin:0;padding:30px;font-family:"Liberation Sans",sans-serif}
.grid{display:grid;grid-template-columns:repeat(4,200px);gap:20px}.grid div{height:140px}
.t{border-radius:50%;background:radial-gradient(circle,#ffd166,#ef476f)}.s{box-shadow:0 8px 16px rgba(0,0,0,.4);background:#06d6a0;transform:rotate(6deg)}
.o{opacity:.5;background:#118ab2}.b{border:8px dashed #073b4c}</style>
<div class="grid"><div class="t"></div><div class="s"></div><div class="o"></div><div class="b"></div></div>
<svg width="400" height="160"><circle cx="80" cy="80" r="70" fill="#ef476f"/><rect x="180" y="20" width="200" height="120" fill="none" stroke="#073b4c" stroke-width="6"/></svg>
<p style="font-size:28px">Text with <b>bold</b>, <i>italic</i>, <u>underline</u> and <s>strike</s>. Emoji: 🎉</p>`,
};

let lastFormatMs = 0;
const logger = {
  debug(message, fields) {
    if (message === "render phases") lastFormatMs = fields.format;
  },
  info() {},
  warn() {},
  error() {},
};

async function differingShare(svg, png) {
  const { width, height } = await sharp(png).metadata();
  const reference = await sharp(png).ensureAlpha().raw().toBuffer();
  const drawn = await sharp(svg, { density: 72 })
    .resize(width, height, { fit: "fill" })
    .flatten({ background: "#fff" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return pixelmatch(reference, drawn, undefined, width, height, { threshold: 0.1 }) / (width * height);
}

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

const server = await startFixtureServer(Object.fromEntries(Object.entries(PAGES).map(([name, html]) => [`/${name}`, html])));
const dataDir = await mkdtemp(join(tmpdir(), "renderkit-svg-compare-"));
const renderer = await createRenderer({
  plugins: [playwright(), imageFormats(), svgFormat()],
  dataDir,
  allowPrivateNetworks: [`127.0.0.1:${server.port}`],
  logger,
});
const rows = [];
try {
  for (const name of Object.keys(PAGES)) {
    for (const fullPage of [false, true]) {
      const request = { url: `${server.url}/${name}`, width: 1280, height: 800, full_page: fullPage };
      const png = await renderer.render({ ...request, format: "png" });
      const pngBytes = await readFile(png.path);
      for (const method of ["pdf", "dom"]) {
        const times = [];
        let result;
        for (let i = 0; i < RUNS + 1; i++) {
          result = await renderer.render({ ...request, format: "svg", svg_method: method });
          if (i > 0) times.push(lastFormatMs); // the first run warms up (and bundles dom-to-svg once)
        }
        const svg = await readFile(result.path);
        const text = svg.toString("utf8");
        rows.push({
          page: `${name} ${result.width}×${result.height}${fullPage ? " (full)" : ""}`,
          method,
          ms: median(times),
          kb: Math.round(svg.length / 1024),
          diff: `${(100 * (await differingShare(svg, pngBytes))).toFixed(2)}%`,
          text: (text.match(/<text\b/g) ?? []).length,
          glyphs: (text.match(/<use\b/g) ?? []).length,
        });
        console.error(JSON.stringify(rows.at(-1)));
      }
    }
  }
} finally {
  await renderer.close();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
}
console.log("| page | method | format step (median ms) | size (KB) | pixels differing from the PNG | `<text>` | `<use>` |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.page} | ${r.method} | ${r.ms} | ${r.kb} | ${r.diff} | ${r.text} | ${r.glyphs} |`);
