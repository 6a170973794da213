// Video: seconds of 1280x720 30 fps video captured and encoded per second of wall time, the library
// against a raw playwright-core loop doing the same CDP screencast -> ffmpeg pipe (one run, ratios).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { videoFormats } from "@renderkit/format-video";
import { chromium } from "playwright-core";
import { serveHtml } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_VIDEOS ?? 3);
const SECONDS = Number(process.env.BENCH_VIDEO_SECONDS ?? 4);
const FPS = 30;
const FORMATS = (process.env.BENCH_VIDEO_FORMATS ?? "mp4,webm").split(",");
const VIEWPORT = { width: 1280, height: 720 };
/** Four boxes moved and turned by `requestAnimationFrame`: a page that changes every frame. */
export const PAGE = `<!doctype html><title>bench</title><style>body{margin:0;font-family:sans-serif;background:#f4f4f8}
.b{position:absolute;width:120px;height:120px;border-radius:16px}</style>
<h1 style="margin:40px">renderkit video bench</h1><p style="margin:40px">${"Lorem ipsum dolor sit amet. ".repeat(30)}</p>
${[0, 1, 2, 3].map((i) => `<div class=b id=b${i} style="top:${300 + i * 100}px;background:hsl(${i * 90},70%,50%)"></div>`).join("")}
<script>const s=performance.now();(function f(n){const t=n-s;for(let i=0;i<4;i++)document.getElementById('b'+i).style.transform='translateX('+((t*(0.3+i*0.15))%1160)+'px) rotate('+(t/10)+'deg)';requestAnimationFrame(f)})(s)</script>`;

const ENCODE = {
  mp4: ["-c:v", "libx264", "-preset", "veryfast", "-crf", "24", "-movflags", "+faststart"],
  webm: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "6", "-row-mt", "1", "-crf", "30", "-b:v", "0"],
};

/** The raw loop: a fresh context, CDP screencast, frames resampled by timestamp and piped into ffmpeg. */
async function rawVideo(browser, url, format, dir, index) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    const out = join(dir, `raw-${index}.${format}`);
    const ff = spawn(
      "ffmpeg",
      [
        ...["-loglevel", "error", "-f", "image2pipe", "-c:v", "mjpeg", "-framerate", String(FPS), "-i", "pipe:0"],
        ...["-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-pix_fmt", "yuv420p", ...ENCODE[format], "-y", out],
      ],
      { stdio: ["pipe", "ignore", "inherit"] },
    );
    const exited = new Promise((resolve) => ff.once("close", resolve));
    const write = (buf) => (ff.stdin.write(buf) ? undefined : new Promise((r) => ff.stdin.once("drain", r)));
    const total = SECONDS * FPS;
    let first;
    let last;
    let written = 0;
    let distinct = 0;
    let chain = Promise.resolve();
    const fill = async (t) => {
      const n = Math.min(total, Math.ceil(t * FPS));
      if (written < n) distinct++;
      while (written < n) {
        await write(last);
        written++;
      }
    };
    const cdp = await context.newCDPSession(page);
    cdp.on("Page.screencastFrame", ({ data, metadata, sessionId }) => {
      cdp.send("Page.screencastFrameAck", { sessionId }).catch(() => undefined);
      const buf = Buffer.from(data, "base64");
      chain = chain.then(async () => {
        first ??= metadata.timestamp;
        if (last) await fill(metadata.timestamp - first);
        last = buf;
      });
    });
    await cdp.send("Page.startScreencast", { format: "jpeg", quality: 85, maxWidth: VIEWPORT.width, maxHeight: VIEWPORT.height });
    await new Promise((r) => setTimeout(r, SECONDS * 1000 + 100));
    await cdp.send("Page.stopScreencast");
    await chain;
    await fill(SECONDS);
    ff.stdin.end();
    if ((await exited) !== 0) throw new Error("ffmpeg failed");
    return distinct / SECONDS;
  } finally {
    await context.close();
  }
}

export async function benchVideo() {
  const { server, url } = await serveHtml(PAGE);
  const dir = mkdtempSync(join(tmpdir(), "renderkit-bench-video-"));
  const rows = [];
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  const renderer = await createRenderer({
    plugins: [playwright(), videoFormats()],
    dataDir: join(dir, "data"),
    concurrency: 1,
    allowPrivateNetworks: [new URL(url).host],
    logger: new ConsoleLogger("silent"),
  });
  try {
    for (const format of FORMATS) {
      let i = 0;
      let rates = [];
      const raw = async () => rates.push(await rawVideo(browser, url, format, dir, i++));
      await raw(); // warm-up
      rates = [];
      const rawStats = await measure(N, 1, raw);
      rows.push({ loop: "raw CDP screencast", format, ...rawStats, captured: median(rates) });
      const lib = async () => {
        const result = await renderer.render({ url, format, ...VIEWPORT, video_duration: SECONDS, video_fps: FPS });
        rates.push(result.frameRate);
      };
      await lib();
      rates = [];
      const libStats = await measure(N, 1, lib);
      rows.push({ loop: "renderkit library", format, ...libStats, captured: median(rates) });
    }
  } finally {
    await renderer.close();
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const raw = (format) => rows.find((r) => r.loop === "raw CDP screencast" && r.format === format);
  const out = rows.map((r) => ({
    loop: r.loop,
    format: r.format,
    "video s / wall s": (r.rps * SECONDS).toFixed(2),
    "p50 ms": r.p50.toFixed(0),
    "wall - video ms": (r.p50 - SECONDS * 1000).toFixed(0),
    "distinct fps": r.captured.toFixed(1),
    "vs raw": (r.rps / raw(r.format).rps).toFixed(2),
  }));
  return `Video (${VIEWPORT.width}x${VIEWPORT.height}, ${FPS} fps, ${SECONDS} s per video, ${N} videos per row, c=1)\n${table(out, Object.keys(out[0]))}`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
