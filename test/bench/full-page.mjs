// Tall full-page captures: a 40,000 px page captured in sections and stitched by sharp, against a
// single-section 16,000 px capture of the same page, per megapixel (one run, medians and ratios).

import { mkdtempSync, rmSync } from "node:fs";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 5);
const WIDTH = 1280;
const PARAGRAPH = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ";
// 200 sections of 200 px: text on tinted backgrounds, so the PNGs are not trivially compressible.
const PAGE = `<!doctype html><title>tall bench</title><body style="margin:0;font-family:sans-serif">${Array.from(
  { length: 200 },
  (_, i) =>
    `<section style="height:200px;overflow:hidden;background:hsl(${(i * 37) % 360},60%,90%)"><h2>Section ${i}</h2><p>${PARAGRAPH.repeat(3)}</p></section>`,
).join("")}</body>`;

export async function benchFullPage() {
  const { server, url } = await serveHtml(PAGE);
  const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
  const renderer = await createRenderer({
    plugins: [playwright(), imageFormats()],
    dataDir,
    allowPrivateNetworks: [new URL(url).host],
    logger: new ConsoleLogger("silent"),
  });
  const rows = [];
  try {
    // skip_scroll: the capture alone; the last row adds the lazy-load pre-scroll (default steps).
    const cases = [
      ["single section, 16,000 px", { max_height: 16_000, skip_scroll: true }],
      ["stitched, 40,000 px (5 sections)", { max_height: 40_000, skip_scroll: true }],
      ["stitched, 40,000 px, jpg", { max_height: 40_000, skip_scroll: true, format: "jpg" }],
      ["stitched, 40,000 px, with pre-scroll", { max_height: 40_000 }],
    ];
    for (const [loop, options] of cases) {
      let result;
      const task = async () => {
        result = await renderer.render({ url, width: WIDTH, height: 1024, full_page: true, ...options });
      };
      await measure(1, 1, task);
      const timing = await measure(N, 1, task);
      const megapixels = (result.width * result.height) / 1e6;
      rows.push({ loop, ...timing, megapixels, bytes: (await stat(result.path)).size, truncated: result.truncated });
    }
  } finally {
    await renderer.close();
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const reference = rows[0].p50 / rows[0].megapixels;
  const out = rows.map((r) => ({
    loop: r.loop,
    "p50 ms": r.p50.toFixed(0),
    MP: r.megapixels.toFixed(1),
    "ms/MP": (r.p50 / r.megapixels).toFixed(1),
    "per MP vs single": (r.p50 / r.megapixels / reference).toFixed(2),
    "MB out": (r.bytes / 1e6).toFixed(1),
    truncated: r.truncated,
  }));
  return `Full-page captures (${WIDTH} px wide, ${N} renders per row)\n${table(out, Object.keys(out[0]))}`;
}
