// What limits the distinct frames of a video (docs/performance.md, "Video"): the video bench's page
// captured by Chromium's screencast and by screenshots every 1/30 s, each alone and with libx264
// encoding beside it, raw playwright-core; frames received, distinct frames a 30 fps output would
// show (each output frame the last capture at or before its time, and renderkit's resampler, which
// takes the nearest), and Chromium's CPU by process. Then whether Chromium's virtual time stops
// the page's animations.
// `node test/bench/run.mjs video-capture` (VIDEO_CAPTURE_SECONDS, default 4).

import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { FrameResampler } from "@renderkit/format-video";
import { chromium } from "playwright-core";
import { processTree } from "./pss.mjs";
import { serveHtml } from "./serve.mjs";
import { table } from "./stats.mjs";
import { PAGE } from "./video.mjs";

const SECONDS = Number(process.env.VIDEO_CAPTURE_SECONDS ?? 4);
const FPS = 30;
const VIEWPORT = { width: 1280, height: 720 };
const JPEG = { format: "jpeg", quality: 85 };
/** Screenshots asked for and not answered yet, at most; a tick with this many waiting is skipped. */
const IN_FLIGHT = 4;

/** CPU time so far of this process's Chromium processes, by type, in ms (USER_HZ 100). */
async function chromiumCpu() {
  const totals = {};
  for (const pid of await processTree(process.pid)) {
    if (pid === process.pid) continue;
    try {
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("chrom")) continue;
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const kind = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? "browser";
      totals[kind] = (totals[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // the process ended meanwhile
    }
  }
  return totals;
}

/**
 * Distinct frames per second of a 30 fps output from captures at `times` (s): each output frame
 * taking the last capture at or before its time, and renderkit's `FrameResampler` (the nearest).
 */
function distinct(times) {
  const t = times.map((x) => x - times[0]);
  const slots = Math.floor(t.at(-1) * FPS);
  let n = 0;
  let last = -1;
  for (let i = 0; i < slots; i++) {
    const k = t.findLastIndex((x) => x <= i / FPS + 1e-9);
    if (k !== last) n++;
    last = k;
  }
  const resampler = new FrameResampler(FPS, slots, () => true);
  for (const [i, x] of t.entries()) resampler.push(Buffer.from(String(i)), x);
  resampler.finish();
  return { lastBefore: (n / slots) * FPS, resampler: (resampler.stats.distinct / slots) * FPS };
}

/** libx264 `veryfast` reading JPEG frames, as renderkit's default mp4 encodes; `write(frame)`, `end()`. */
function encoder() {
  const ff = spawn(
    "ffmpeg",
    [
      ...["-loglevel", "error", "-f", "image2pipe", "-c:v", "mjpeg", "-framerate", String(FPS), "-i", "pipe:0"],
      ...["-vf", "format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "24", "-f", "null", "-"],
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  let failed;
  // A missing ffmpeg or one that exits early fails the row at its end, not the process.
  ff.once("error", (error) => {
    failed = error;
  });
  ff.stdin.on("error", (error) => {
    failed ??= error;
  });
  const closed = new Promise((resolve) => ff.once("close", resolve));
  return {
    write: (frame) => void (failed ?? ff.stdin.write(frame)),
    end: async () => {
      ff.stdin.end();
      const code = await closed;
      if (failed || code !== 0) throw new Error(`ffmpeg failed: ${failed?.message ?? `exit code ${code}`}`);
    },
  };
}

/** Chromium's screencast for SECONDS: the paint time of every frame received. */
async function screencast(cdp, onFrame) {
  const times = [];
  const listener = ({ data, metadata, sessionId }) => {
    cdp.send("Page.screencastFrameAck", { sessionId }).catch(() => undefined);
    times.push(metadata.timestamp);
    onFrame(Buffer.from(data, "base64"));
  };
  cdp.on("Page.screencastFrame", listener);
  await cdp.send("Page.startScreencast", { ...JPEG, maxWidth: VIEWPORT.width, maxHeight: VIEWPORT.height });
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  await cdp.send("Page.stopScreencast");
  cdp.off("Page.screencastFrame", listener);
  return times;
}

/** A screenshot asked for every 1/30 s for SECONDS: the time each was asked (distinct answers only). */
async function ticks(cdp, onFrame) {
  const times = [];
  const start = performance.now();
  let waiting = 0;
  let previous = "";
  let order = Promise.resolve();
  for (let k = 0; performance.now() - start < SECONDS * 1000; k++) {
    const due = start + (k * 1000) / FPS - performance.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    if (waiting >= IN_FLIGHT) continue;
    waiting++;
    const asked = performance.now() / 1000;
    const shot = cdp.send("Page.captureScreenshot", JPEG);
    order = order.then(async () => {
      const { data } = await shot;
      waiting--;
      // Two asks one frame apart may get the same picture: it counts once.
      if (data === previous) return;
      previous = data;
      times.push(asked);
      onFrame(Buffer.from(data, "base64"));
    });
  }
  await order;
  return times;
}

/** Whether the page's clock, paused for 1 s, stops performance.now(), animation frames and CSS animations. */
async function virtualTime(context, page) {
  await page.setContent(`<style>@keyframes m{to{transform:translateX(1000px)}}#c{animation:m 10s linear infinite}</style>
<div id=c>css</div><div id=j>raf</div><script>const s=performance.now();
(function f(n){document.getElementById('j').style.transform='translateX('+(n-s)/10+'px)';requestAnimationFrame(f)})(s)</script>`);
  const cdp = await context.newCDPSession(page);
  const read = () =>
    page.evaluate(() => {
      const x = (id) => new DOMMatrix(getComputedStyle(document.getElementById(id)).transform).m41;
      return { now: performance.now(), css: x("c") * 10, raf: x("j") * 10 };
    });
  await cdp.send("Emulation.setVirtualTimePolicy", { policy: "pause" });
  const before = await read();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = await read();
  const ms = (key) => `${Math.round(after[key] - before[key])} ms`;
  return `Virtual time paused for 1 s of real time: performance.now() moved ${ms("now")}, a requestAnimationFrame animation ${ms("raf")}, a CSS animation ${ms("css")}`;
}

export async function benchVideoCapture() {
  const { server, url } = await serveHtml(PAGE);
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  const rows = [];
  let clock;
  try {
    for (const [name, capture] of [
      ["screencast", screencast],
      ["screenshot every 1/30 s", ticks],
    ]) {
      for (const encode of [false, true]) {
        const context = await browser.newContext({ viewport: VIEWPORT });
        const page = await context.newPage();
        await page.goto(url, { waitUntil: "load" });
        const cdp = await context.newCDPSession(page);
        const ffmpeg = encode ? encoder() : undefined;
        const before = await chromiumCpu();
        const times = await capture(cdp, (frame) => ffmpeg?.write(frame));
        const after = await chromiumCpu();
        await ffmpeg?.end();
        await context.close();
        const wall = times.at(-1) - times[0];
        const out = distinct(times);
        const cpu = (kind) => `${Math.round((after[kind] - (before[kind] ?? 0)) / SECONDS / 10)} %`;
        rows.push({
          capture: name,
          "x264 beside": encode ? "yes" : "no",
          "frames/s": ((times.length - 1) / wall).toFixed(1),
          "distinct/s, last before": out.lastBefore.toFixed(1),
          "distinct/s, renderkit's resampler": out.resampler.toFixed(1),
          browser: cpu("browser"),
          "gpu-process": cpu("gpu-process"),
          renderer: cpu("renderer"),
        });
      }
    }
    const context = await browser.newContext({ viewport: VIEWPORT });
    clock = await virtualTime(context, await context.newPage());
    await context.close();
  } finally {
    await browser.close();
    server.close();
  }
  return `Video capture (${VIEWPORT.width}x${VIEWPORT.height}, ${SECONDS} s each, the video bench's page; Chromium CPU as % of one core)\n${table(rows, Object.keys(rows[0]))}\n\n${clock}`;
}
