// Throughput of renderkit against raw playwright-core floors and peer libraries, in one interleaved
// run: for each page and concurrency, every row in turn (order reversed at every other level), each
// with a warm-up of c*2 renders then N measured renders; peak PSS of the rendering process tree.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, findChromium } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { chromium } from "playwright-core";
import { PAGES } from "./pages.mjs";
import { PEER_ROWS } from "./peers.mjs";
import { killDescendantsSync, liveDescendants, samplePss } from "./pss.mjs";
import { renderOverHttp, servePages, spawnServer, waitAnswering } from "./serve.mjs";
import { measure, table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 24);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? "1,2,4").split(",").map(Number);
const ONLY = process.env.BENCH_ROWS?.split(","); // substrings of row names, to run a subset
const RENDER_TIMEOUT_MS = 60_000;
const OPEN_TIMEOUT_MS = 120_000;
const VIEWPORT = { width: 1280, height: 1024 };
const ENGINES = { playwright, puppeteer };

const launchRaw = () => chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });

const FLOOR_ROWS = [
  {
    name: "floor A",
    async open() {
      const browser = await launchRaw();
      const render = async (_w, url) => {
        const context = await browser.newContext({ viewport: VIEWPORT });
        try {
          const page = await context.newPage();
          await page.goto(url, { waitUntil: "load" });
          return (await page.screenshot({ type: "png" })).length;
        } finally {
          await context.close();
        }
      };
      return { render, root: process.pid, close: () => browser.close() };
    },
  },
  {
    name: "floor B",
    async open({ c }) {
      const browser = await launchRaw();
      const context = await browser.newContext({ viewport: VIEWPORT });
      const pages = await Promise.all(Array.from({ length: c }, () => context.newPage()));
      const render = async (w, url) => {
        await pages[w].goto(url, { waitUntil: "load" });
        return (await pages[w].screenshot({ type: "png" })).length;
      };
      return { render, root: process.pid, close: () => browser.close() };
    },
  },
  {
    // floor B with the encoding of renderkit's `optimize_for_speed` rows: Chromium's fast PNG through
    // a DevTools session of each page (Playwright's screenshot cannot ask for it).
    name: "floor B fast png",
    async open({ c }) {
      const browser = await launchRaw();
      const context = await browser.newContext({ viewport: VIEWPORT });
      const pages = await Promise.all(
        Array.from({ length: c }, async () => {
          const page = await context.newPage();
          return { page, cdp: await context.newCDPSession(page) };
        }),
      );
      const render = async (w, url) => {
        await pages[w].page.goto(url, { waitUntil: "load" });
        const shot = await pages[w].cdp.send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true });
        return Buffer.from(shot.data, "base64").length;
      };
      return { render, root: process.pid, close: () => browser.close() };
    },
  },
];

const LIBRARY_ROWS = Object.keys(ENGINES).map((engine) => ({
  name: `renderkit library ${engine}`,
  async open({ c, host }) {
    const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
    const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
    let renderer;
    try {
      renderer = await createRenderer({
        plugins: [ENGINES[engine](), imageFormats()],
        dataDir,
        concurrency: c,
        allowPrivateNetworks: [host],
        logger: new ConsoleLogger("silent"),
      });
    } catch (error) {
      removeDir();
      throw error;
    }
    const render = async (_w, url) => (await renderer.render({ url, format: "png", wait_until: "loaded" })).size;
    return { render, root: process.pid, close: () => renderer.close().finally(removeDir) };
  },
}));

const HTTP_ROWS = Object.keys(ENGINES).flatMap((engine) =>
  [{}, { optimize_for_speed: true }].map((options) => httpRow(engine, options)),
);

function httpRow(engine, options) {
  return {
    name: `renderkit http ${engine}${options.optimize_for_speed ? " fast png" : ""}`,
    async open({ c, host }) {
      const server = await spawnServer({ engine, concurrency: c, site: host });
      try {
        await waitAnswering(server);
      } catch (error) {
        await server.stop();
        throw error;
      }
      const render = async (_w, url) => (await renderOverHttp(server, { url, ...options })).length;
      return { render, root: server.child.pid, close: () => server.stop() };
    },
  };
}

const ROWS = [...FLOOR_ROWS, ...LIBRARY_ROWS, ...HTTP_ROWS, ...PEER_ROWS].filter(
  (row) => !ONLY || ONLY.some((part) => row.name.includes(part)),
);

function within(ms, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const short = (error) =>
  String(error?.message ?? error)
    .split("\n")[0]
    .slice(0, 160);

/** Closes a row's resources; whatever still runs below this process after 5 s is killed. */
async function settle() {
  for (let i = 0; i < 50 && (await liveDescendants()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  killDescendantsSync();
}

/** One cell: open the row, warm up, measure N renders while sampling PSS, close. */
async function runCell(row, { url, c, host }) {
  let opened;
  try {
    opened = await within(OPEN_TIMEOUT_MS, row.open({ c, host }), "opening");
    if (opened.unavailable) return { na: opened.unavailable };
    let bytes = 0;
    const task = async (w) => {
      const size = await within(RENDER_TIMEOUT_MS, opened.render(w, url), "a render");
      if (!(size > 0)) throw new Error(`render produced ${size} bytes`);
      bytes = size;
    };
    await measure(c * 2, c, task);
    const sampler = samplePss(opened.root);
    let result;
    try {
      result = await measure(N, c, task);
    } finally {
      result = { ...result, pss: await sampler.stop(), bytes };
    }
    return result;
  } catch (error) {
    return { error: short(error) };
  } finally {
    if (opened?.close) await within(30_000, opened.close(), "closing").catch(() => undefined);
    await settle();
  }
}

function report(results) {
  const find = (page, name, c) => results.find((r) => r.page === page && r.row === name && r.c === c);
  const ok = (r) => r && r.rps !== undefined;
  const out = [];
  for (const page of Object.keys(PAGES)) {
    for (const c of LEVELS) {
      const floor = find(page, "floor B", c);
      const peers = results.filter((r) => r.page === page && r.c === c && r.row.startsWith("peer ") && ok(r));
      const best = peers.sort((a, b) => b.rps - a.rps)[0];
      for (const { name } of ROWS) {
        const r = find(page, name, c);
        const base = { page, row: name, c };
        if (!ok(r)) {
          const why = r.na ? `n/a: ${r.na}` : `error: ${r.error}`;
          out.push({ ...base, "renders/s": why });
          continue;
        }
        out.push({
          ...base,
          "renders/s": r.rps.toFixed(2),
          "p50 ms": r.p50.toFixed(0),
          "p95 ms": r.p95.toFixed(0),
          KB: (r.bytes / 1024).toFixed(0),
          "peak PSS MB": r.pss.toFixed(0),
          "PSS vs floor B +MB": ok(floor) ? (r.pss - floor.pss).toFixed(0) : "-",
          "vs floor B": ok(floor) ? (r.rps / floor.rps).toFixed(2) : "-",
          "vs best peer": best ? `${(r.rps / best.rps).toFixed(2)}` : "-",
        });
      }
    }
  }
  const columns = [
    ...["page", "row", "c", "renders/s", "p50 ms", "p95 ms", "KB"],
    ...["peak PSS MB", "PSS vs floor B +MB", "vs floor B", "vs best peer"],
  ];
  const filled = out.map((r) => Object.fromEntries(columns.map((k) => [k, r[k] ?? "-"])));
  return table(filled, columns);
}

export async function benchThroughput() {
  const { server, host, urls } = await servePages(PAGES);
  const onSignal = () => process.exit(130);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("exit", killDescendantsSync);
  const results = [];
  let level = 0;
  try {
    for (const [page, url] of Object.entries(urls)) {
      for (const c of LEVELS) {
        // Alternate the order at every level, so a drift in machine load favours no row.
        const order = level++ % 2 === 0 ? ROWS : [...ROWS].reverse();
        for (const row of order) {
          const result = await runCell(row, { url, c, host });
          results.push({ page, row: row.name, c, ...result });
          const status = result.rps ? `${result.rps.toFixed(2)} r/s` : (result.error ?? result.na);
          process.stderr.write(`throughput: ${page} c=${c} ${row.name}: ${status}\n`);
        }
      }
    }
  } finally {
    server.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", killDescendantsSync);
    killDescendantsSync();
  }
  const best = "vs best peer: against the peer row with the most renders/s at that page and c";
  return `Throughput (png 1280x1024, wait until load; ${N} renders per cell after c*2 warm-up; peak PSS of the rendering process tree; ${best})\n${report(results)}`;
}
