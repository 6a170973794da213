// Where the time between floor B and renderkit goes: the simple page to a PNG at one concurrency,
// from floor B, adding one thing renderkit does at a time (a browser context per page, an egress
// proxy per context, the DevTools capture, the reset between renders), then renderkit itself, and
// the same design driven over raw DevTools without a driver. Prints renders/s, the ratio to floor B
// and the CPU per render of each kind of process (from /proc: user + system time).
// `node test/bench/run.mjs breakdown` (BREAKDOWN_C, BREAKDOWN_N, BREAKDOWN_ROUNDS; BREAKDOWN_FAST=1: every row
// captures with Chromium's fast PNG encoding, floor B included, over DevTools, and renderkit with
// `optimize_for_speed`).

import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AddressPolicy, ConsoleLogger, createRenderer } from "@renderkit/core";
import { CHROMIUM_FLAGS, DevtoolsLink, findChromium, IDLE_POLICY, openEgressSession } from "@renderkit/core/chromium";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import { chromium } from "playwright-core";
import { ChromiumProcess } from "../../core/dist/chromium/browser/chromium-process.js";
import { resetChromiumPage } from "../../core/dist/chromium/browser/page-reset.js";
import { SIMPLE } from "./pages.mjs";
import { processTree } from "./pss.mjs";
import { servePages } from "./serve.mjs";
import { table } from "./stats.mjs";

const C = Number(process.env.BREAKDOWN_C ?? 4);
const N = Number(process.env.BREAKDOWN_N ?? 80);
const ROUNDS = Number(process.env.BREAKDOWN_ROUNDS ?? 2);
const FAST = process.env.BREAKDOWN_FAST === "1";
const VIEWPORT = { width: 1280, height: 1024 };
const TICK_MS = 10; // USER_HZ 100

/** CPU time so far of this process and its descendants, by kind of process, in ms. */
async function cpuByKind() {
  const totals = {};
  for (const pid of await processTree(process.pid)) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = pid === process.pid ? "" : await readFile(`/proc/${pid}/cmdline`, "utf8");
      const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
      const kind =
        pid === process.pid ? "node" : type === "renderer" || type === "gpu-process" ? type : type ? "other" : "browser";
      totals[kind] = (totals[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // the process ended meanwhile
    }
  }
  return totals;
}

const allowLoopback = () => new AddressPolicy({ allowPrivate: true });

/**
 * Pages of one Playwright browser; `contexts`: one context per page, `proxy`: an egress session
 * each, `devtools`: a DevTools session of its own on each page.
 */
async function playwrightPages({ contexts, proxy, devtools }) {
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS] });
  const shared = contexts ? undefined : await browser.newContext({ viewport: VIEWPORT });
  const pages = await Promise.all(
    Array.from({ length: C }, async () => {
      const egress = proxy ? await openEgressSession(allowLoopback()) : undefined;
      const context = shared ?? (await browser.newContext({ viewport: VIEWPORT, proxy: egress && { server: egress.proxyUrl } }));
      const page = await context.newPage();
      return { page, egress, cdp: devtools ? await context.newCDPSession(page) : undefined, firstReset: true };
    }),
  );
  const close = async () => {
    await browser.close();
    await Promise.all(pages.map((p) => p.egress?.close()));
  };
  return { pages, close };
}

/** The reset renderkit gives a reused page (`resetForReuse` without its driver parts). */
async function reset(page) {
  const { origins } = page.egress.origins();
  page.egress.usePolicy(IDLE_POLICY);
  await resetChromiumPage(page.cdp, origins, { firstReset: page.firstReset });
  page.firstReset = false;
  page.egress.usePolicy(allowLoopback());
}

const capture = async (cdp) => (await cdp.send("Page.captureScreenshot", { format: "png", optimizeForSpeed: FAST })).data.length;

const playwrightRow = (name, { contexts, proxy, devtoolsCapture: asked, withReset }) => ({
  name,
  async open(url) {
    // Playwright's screenshot cannot ask for the fast encoding.
    const devtoolsCapture = asked || FAST;
    const { pages, close } = await playwrightPages({ contexts, proxy, devtools: devtoolsCapture || withReset });
    const render = async (w) => {
      const p = pages[w];
      await p.page.goto(url, { waitUntil: "load" });
      const size = devtoolsCapture ? await capture(p.cdp) : (await p.page.screenshot({ type: "png" })).length;
      if (withReset) await reset(p);
      return size;
    };
    return { render, close };
  },
});

const rawRow = (name, { withReset }) => ({
  name,
  async open(url) {
    const browser = await ChromiumProcess.launch({ executablePath: findChromium() });
    // renderkit's own DevTools client (sessions flattened, no driver, no events but those asked for).
    const devtools = await DevtoolsLink.connect(browser.wsEndpoint);
    const pages = [];
    const close = async () => {
      devtools.close();
      await browser.kill();
      await Promise.all(pages.map((p) => p.egress.close()));
    };
    try {
      for (let i = 0; i < C; i++) {
        const egress = await openEgressSession(allowLoopback());
        const { browserContextId } = await devtools.send("Target.createBrowserContext", {
          proxyServer: egress.proxyUrl,
          proxyBypassList: "<-loopback>",
        });
        const { targetId } = await devtools.send("Target.createTarget", { url: "about:blank", browserContextId });
        const cdp = await devtools.attach(targetId);
        pages.push({ cdp, egress, firstReset: true });
        await cdp.send("Page.enable");
        await cdp.send("Emulation.setDeviceMetricsOverride", { ...VIEWPORT, deviceScaleFactor: 1, mobile: false });
      }
    } catch (error) {
      await close();
      throw error;
    }
    const render = async (w) => {
      const p = pages[w];
      const loaded = new Promise((resolve) => {
        const fired = () => {
          p.cdp.off("Page.loadEventFired", fired);
          resolve();
        };
        p.cdp.on("Page.loadEventFired", fired);
      });
      await p.cdp.send("Page.navigate", { url });
      await loaded;
      const size = await capture(p.cdp);
      if (withReset) await reset(p);
      return size;
    };
    return { render, close };
  },
});

const ROWS = [
  playwrightRow("floor B (one context, reused pages)", {}),
  playwrightRow("+ a context per page", { contexts: true }),
  playwrightRow("+ an egress proxy per context", { contexts: true, proxy: true }),
  playwrightRow("+ DevTools capture", { contexts: true, proxy: true, devtoolsCapture: true }),
  playwrightRow("+ renderkit's reset", { contexts: true, proxy: true, devtoolsCapture: true, withReset: true }),
  {
    name: "renderkit library playwright",
    async open(url) {
      const dataDir = mkdtempSync(join(tmpdir(), "renderkit-bench-"));
      const renderer = await createRenderer({
        plugins: [playwright(), imageFormats()],
        dataDir,
        concurrency: C,
        allowPrivateNetworks: ["127.0.0.1"],
        logger: new ConsoleLogger("silent"),
      }).catch((error) => {
        rmSync(dataDir, { recursive: true, force: true });
        throw error;
      });
      return {
        render: async () => (await renderer.render({ url, format: "png", wait_until: "loaded", optimize_for_speed: FAST })).size,
        close: () => renderer.close().finally(() => rmSync(dataDir, { recursive: true, force: true })),
      };
    },
  },
  rawRow("raw DevTools: contexts, proxies, capture", {}),
  rawRow("raw DevTools + renderkit's reset", { withReset: true }),
];

async function runRow(row, url) {
  const opened = await row.open(url);
  try {
    const renders = async (total) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: C }, async (_, w) => {
          while (next++ < total) if (!((await opened.render(w)) > 0)) throw new Error(`${row.name}: an empty capture`);
        }),
      );
    };
    await renders(C * 3);
    const before = await cpuByKind();
    const started = performance.now();
    await renders(N);
    const seconds = (performance.now() - started) / 1000;
    const after = await cpuByKind();
    const perRender = (kind) => ((after[kind] ?? 0) - (before[kind] ?? 0)) / N;
    return { rps: N / seconds, cpu: Object.fromEntries(Object.keys(after).map((kind) => [kind, perRender(kind)])) };
  } finally {
    await opened.close();
  }
}

export async function benchBreakdown() {
  const server = await servePages({ simple: SIMPLE });
  const results = new Map(ROWS.map((row) => [row.name, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...ROWS].reverse() : ROWS;
      for (const row of order) results.get(row.name).push(await runRow(row, server.urls.simple));
    }
  } finally {
    server.server.close();
  }
  const mean = (runs, pick) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  const floor = mean(results.get(ROWS[0].name), (r) => r.rps);
  const kinds = ["browser", "renderer", "gpu-process", "other", "node"];
  const rows = ROWS.map(({ name }) => {
    const runs = results.get(name);
    const cpu = Object.fromEntries(kinds.map((kind) => [kind, mean(runs, (r) => r.cpu[kind] ?? 0)]));
    const total = kinds.reduce((sum, kind) => sum + cpu[kind], 0);
    return {
      row: name,
      "renders/s": mean(runs, (r) => r.rps).toFixed(2),
      "vs floor B": (mean(runs, (r) => r.rps) / floor).toFixed(2),
      "CPU ms/render": total.toFixed(0),
      ...Object.fromEntries(kinds.map((kind) => [kind, cpu[kind].toFixed(0)])),
    };
  });
  const columns = ["row", "renders/s", "vs floor B", "CPU ms/render", ...kinds];
  const encoding = FAST ? "; DevTools captures and renderkit with the fast PNG encoding" : "";
  return `Breakdown: simple page to PNG at c = ${C}, ${N} renders per row, mean of ${ROUNDS} interleaved rounds${encoding}\n${table(rows, columns)}`;
}
