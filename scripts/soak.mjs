// `npm run soak`: leak check of a real server (issue 14, "Leaks"). Starts `renderkit serve` from the
// built CLI with a private TMPDIR, sends renders mixing successes (png, jpeg, pdf, md, svg, mp4),
// page-load timeouts, navigation errors and client disconnects (the HTTP request aborted while the
// page loads) on both engines, waits for the server to be idle, then checks that nothing is left:
// no open page or browser context (engine stats, and Chromium itself over DevTools), no Chromium
// process outside a live browser, no ffmpeg, no temp files. `--rss` also reports the server's
// resident memory growth from a warm baseline (target < 10 %). Prints figures; exits 1 on a failed check.
//
//   npm run soak                          500 renders
//   npm run soak -- --rss --renders 2000  resident memory over 2,000 renders after a warm-up
//   options: --renders N  --warmup N  --concurrency N (client)  --server-concurrency N  --max-growth %  --keep

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  browsersIn,
  collectGarbage,
  dataLeftovers,
  descendants,
  devtoolsCounts,
  freePort,
  listProcesses,
  pssKiB,
  rssKiB,
  serve,
  serverMetrics,
  table,
  untilTrue,
} from "../test/faults/harness.mjs";

const { values: args } = parseArgs({
  options: {
    renders: { type: "string" },
    warmup: { type: "string" },
    concurrency: { type: "string", default: "6" },
    "server-concurrency": { type: "string", default: "4" },
    rss: { type: "boolean", default: false },
    "max-growth": { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
  },
});
const RENDERS = Number(args.renders ?? (args.rss ? 2000 : 500));
const WARMUP = Number(args.warmup ?? (args.rss ? 100 : 20));
const ENGINES = ["playwright", "puppeteer"];
const METRICS_TOKEN = "soak-metrics-token-0123456789";

/** One cycle of 20 renders: 12 successes, 2 timeouts, 3 navigation errors, 3 disconnects. */
const CYCLE = ["ok", "html", "ok", "timeout", "pdf", "nav", "ok", "disconnect", "md", "html"];
CYCLE.push("ok", "nav", "disconnect", "svg", "ok", "timeout", "jpeg", "disconnect", "mp4", "nav");
/** What each kind must end in: a status, and for failures the spec codes allowed. */
const EXPECTED = {
  timeout: { statuses: [500], codes: ["RenderTimeoutError", "TimedOutError"] },
  nav: { statuses: [400, 500], codes: ["EngineResponseNotOkError", "URLDoesNotResolveError", "InvalidURLError"] },
};

const dir = mkdtempSync(join(tmpdir(), "renderkit-soak-"));
const privateTmp = join(dir, "tmp");
const dataDir = join(dir, "data");
mkdirSync(privateTmp);
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
};

// The site renders load: a page, one that never answers, one that answers after 3 s.
const hanging = new Set();
const arrivals = new Map();
const site = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname === "/hang") return void hanging.add(res);
  const page = `<body style="margin:0;font-family:sans-serif;background:#f4f4f4"><h1>soak ${url.search}</h1><p>${"text ".repeat(60)}</p></body>`;
  const answer = () => !res.destroyed && res.writeHead(200, { "content-type": "text/html" }).end(page);
  if (url.pathname !== "/slow") return answer();
  arrivals.get(url.searchParams.get("n"))?.();
  setTimeout(answer, 3_000).unref();
});
await new Promise((r) => site.listen(0, "127.0.0.1", r));
const siteUrl = `http://127.0.0.1:${site.address().port}`;
const closedPort = await freePort(); // nothing listens there: connection refused

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = await serve(
  join(dir, "config.json"),
  {
    port,
    host: "127.0.0.1",
    dataDir,
    allowPrivateNetworks: ["127.0.0.1"],
    concurrency: Number(args["server-concurrency"]),
    maxQueued: 10_000,
    metrics: { enabled: true, token: METRICS_TOKEN },
    adblock: { lists: [] },
    projects: [
      {
        id: "soak",
        secretKey: "sk_soak_0123456789abcdef0123",
        publishableKey: "pk_soak_key",
        webhookSecret: "whsec_soak_0123456789abcdef",
        rateLimit: { requests: 1_000_000, perSeconds: 60 },
      },
    ],
  },
  // --rss: an inspector on a free loopback port, to collect garbage before each memory figure.
  { TMPDIR: privateTmp, ...(args.rss ? { NODE_OPTIONS: "--inspect=127.0.0.1:0" } : {}) },
);

function bodyOf(kind, n) {
  const page = `${siteUrl}/page?n=${n}`;
  const common = { engine: ENGINES[n % ENGINES.length], width: 640, height: 400 };
  switch (kind) {
    case "html":
      return { ...common, html: `<body style="margin:0"><h1>html ${n}</h1><p>${"words ".repeat(80)}</p></body>` };
    case "pdf":
    case "md":
    case "svg":
    case "jpeg":
      return { ...common, url: page, format: kind };
    case "mp4":
      return { ...common, url: page, format: "mp4", video_duration: 1, width: 320, height: 240 };
    case "timeout":
      return { ...common, url: `${siteUrl}/hang?n=${n}`, timeout: 5_000 };
    case "nav":
      return { ...common, url: `http://127.0.0.1:${closedPort}/nowhere?n=${n}` };
    case "disconnect":
      return { ...common, url: `${siteUrl}/slow?n=${n}` };
    default:
      return { ...common, url: page };
  }
}

/** Sends render `n`; returns its kind and what the client saw. */
async function renderOne(n) {
  const kind = CYCLE[n % CYCLE.length];
  const controller = new AbortController();
  if (kind === "disconnect") arrivals.set(String(n), () => controller.abort());
  try {
    const response = await fetch(`${base}/v1/render/sync`, {
      method: "POST",
      headers: { authorization: "Bearer sk_soak_0123456789abcdef0123", "content-type": "application/json" },
      body: JSON.stringify(bodyOf(kind, n)),
      signal: controller.signal,
    });
    const body = await response.json().catch(() => ({}));
    return { kind, status: response.status, code: body?.error?.code };
  } catch (error) {
    return { kind, status: controller.signal.aborted ? "aborted" : `error ${error.cause?.code ?? error.message}` };
  } finally {
    arrivals.delete(String(n));
  }
}

/** The server's resident memory and V8 heap in use (MiB) after every 10 % of the measured renders, while they run. */
const trend = [];

/** Runs renders `from` to `to - 1`, `concurrency` at a time (sampling `trend` when `measure`); returns their outcomes. */
async function run(from, to, measure = false) {
  const outcomes = [];
  let next = from;
  const step = Math.max(1, Math.round((to - from) / 10));
  const workers = Array.from({ length: Number(args.concurrency) }, async () => {
    while (next < to) {
      outcomes.push(await renderOne(next++));
      if (measure && outcomes.length % step === 0) {
        const rss = Math.round(rssKiB(server.pid) / 1024);
        void metrics().then((m) => trend.push(`${rss}/${Math.round(m.heapUsed / 1024)}`));
      }
    }
  });
  await Promise.all(workers);
  return outcomes;
}

const metrics = () => serverMetrics(base, METRICS_TOKEN, ENGINES);

/** Waits until nothing is queued, running or open (disconnected renders finish on their own). */
async function idle() {
  const ok = await untilTrue(async () => {
    const m = await metrics();
    return m.waiting === 0 && m.active === 0 && ENGINES.every((e) => m.pages[e] === 0);
  }, 300_000);
  if (!ok) throw new Error(`the server did not become idle: ${JSON.stringify(await metrics())}`);
  await new Promise((r) => setTimeout(r, 3_000)); // closing contexts and exiting renderer processes settle
}

/** Process groups of every browser seen so far (sampled every 2 s): a recycled or crashed browser's too. */
const everGroups = new Set();
const groupSampler = setInterval(() => {
  for (const b of browsersIn(privateTmp)) everGroups.add(b.pid);
}, 2_000);

/** Everything this server started, and which of it is left over. */
function snapshot() {
  const browsers = browsersIn(privateTmp);
  const groups = new Set(browsers.map((b) => b.pid));
  for (const group of groups) everGroups.add(group);
  const all = listProcesses();
  const children = new Set(descendants(server.pid, all).map((p) => p.pid));
  const mine = all.filter(
    (p) => p.pid !== server.pid && (children.has(p.pid) || everGroups.has(p.pgid) || p.cmdline.includes(privateTmp)),
  );
  const watchdogs = new Set(
    mine
      .filter((p) => p.cmdline.includes("renderkit-watchdog") && groups.has(Number(p.cmdline.split(" ").at(-2))))
      .map((p) => p.pid),
  );
  const leaked = mine.filter((p) => !groups.has(p.pgid) && !watchdogs.has(p.pgid));
  const type = (p) => p.cmdline.match(/--type=([a-z-]+)/)?.[1] ?? (groups.has(p.pid) ? "browser" : p.cmdline.split(" ")[0]);
  const byType = {};
  for (const p of mine.filter((p) => groups.has(p.pgid))) byType[type(p)] = (byType[type(p)] ?? 0) + 1;
  const ffmpeg = mine.filter((p) => /(^|\/)ffmpeg\b/.test(p.cmdline.split(" ")[0]));
  const profiles = new Set(browsers.map((b) => b.profile.split("/").at(-1)));
  const temp = readdirSync(privateTmp).filter((name) => !profiles.has(name));
  const chromiumRss = mine.filter((p) => groups.has(p.pgid)).reduce((sum, p) => sum + pssKiB(p.pid), 0);
  return { browsers, byType, leaked, ffmpeg, temp, serverRss: rssKiB(server.pid), chromiumRss };
}

/** Median of five samples half a second apart; with --rss after a full garbage collection. */
async function steadyRss() {
  if (args.rss) {
    await collectGarbage(server.inspector());
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push({ ...snapshot(), ...(await metrics()) });
    await new Promise((r) => setTimeout(r, 500));
  }
  const median = (key) => samples.map((s) => s[key]).sort((a, b) => a - b)[2];
  return { server: median("serverRss"), chromium: median("chromiumRss"), heap: median("heapUsed"), external: median("external") };
}

let exitCode = 1;
try {
  console.log(
    `soak: ${WARMUP} warm-up renders, then ${RENDERS}; server concurrency ${args["server-concurrency"]}, client ${args.concurrency}`,
  );
  await run(0, WARMUP);
  await idle();
  const before = snapshot();
  const baseline = await steadyRss();
  const contextsBefore = await Promise.all(before.browsers.map((b) => devtoolsCounts(b.profile)));

  const measured = Date.now();
  const outcomes = await run(WARMUP, WARMUP + RENDERS, true);
  const rendered = Date.now();
  await idle();
  const after = snapshot();
  const final = await steadyRss();
  const m = await metrics();
  const contextsAfter = await Promise.all(after.browsers.map((b) => devtoolsCounts(b.profile)));

  const rows = new Map();
  for (const o of outcomes) {
    const key = `${o.kind} -> ${o.status}${o.code ? ` ${o.code}` : ""}`;
    rows.set(key, (rows.get(key) ?? 0) + 1);
  }
  console.log(
    `\n${table(
      [...rows].sort().map(([outcome, count]) => ({ outcome, count })),
      ["outcome", "count"],
    )}\n`,
  );
  const wrong = outcomes.filter((o) => {
    if (o.kind === "disconnect") return o.status !== "aborted" && o.status !== 200;
    const expected = EXPECTED[o.kind];
    if (!expected) return o.status !== 200;
    return !expected.statuses.includes(o.status) || !expected.codes.includes(o.code);
  });
  check(wrong.length === 0, `every render ended as its kind should (${wrong.length} did not)`);
  check(
    outcomes.filter((o) => o.kind === "disconnect" && o.status === "aborted").length > 0,
    "client disconnects happened mid-render",
  );
  check(server.alive(), "the server is still running");
  check(
    ENGINES.every((e) => m.pages[e] === 0),
    `engine stats: no open page (${JSON.stringify(m.pages)})`,
  );
  check(
    ENGINES.every((e) => m.browsers[e] <= 1),
    `engine stats: at most one browser per engine (${JSON.stringify(m.browsers)})`,
  );
  const contexts = contextsAfter.reduce((sum, c) => sum + c.contexts, 0);
  const pages = contextsAfter.reduce((sum, c) => sum + c.pages, 0);
  const pagesBefore = contextsBefore.reduce((sum, c) => sum + c.pages, 0);
  check(contexts === 0, `Chromium (DevTools): no browser context left (${contexts})`);
  check(
    pages <= Math.max(pagesBefore, after.browsers.length),
    `Chromium (DevTools): no page left (${pages} open, ${after.browsers.length} start pages allowed)`,
  );
  check(
    after.leaked.length === 0,
    `no Chromium process outside a live browser (${after.leaked.map((p) => p.cmdline.slice(0, 80)).join("; ")})`,
  );
  check(
    (after.byType.renderer ?? 0) <= Math.max(before.byType.renderer ?? 0, after.browsers.length * 2),
    `renderer processes not piling up (${before.byType.renderer ?? 0} before, ${after.byType.renderer ?? 0} after)`,
  );
  check(after.ffmpeg.length === 0, `no ffmpeg process (${after.ffmpeg.length})`);
  const stale = dataLeftovers(dataDir);
  check(stale.length === 0, `no temp file or queued job left in the data directory (${stale.join(", ")})`);
  // Playwright keeps one artifacts directory per browser connection (removed when it closes).
  const artifacts = after.temp.filter((name) => name.startsWith("playwright-artifacts-"));
  const strays = after.temp.filter((name) => !artifacts.includes(name));
  check(strays.length === 0, `no temp file or directory left (${strays.join(", ")})`);
  check(
    artifacts.length <= m.browsers.playwright,
    `Playwright artifact directories: one per live browser at most (${artifacts.length})`,
  );
  const growth = ((final.server - baseline.server) / baseline.server) * 100;
  if (args.rss) check(growth < Number(args["max-growth"]), `server RSS growth under ${args["max-growth"]} %`);

  const mb = (kib) => (kib / 1024).toFixed(0);
  const figures = [
    { figure: "renders (after warm-up)", value: RENDERS },
    { figure: "wall time of the renders (s)", value: ((rendered - measured) / 1000).toFixed(0) },
    { figure: "browser launches (playwright / puppeteer)", value: ENGINES.map((e) => m.launches[e]).join(" / ") },
    { figure: "Chromium processes before / after", value: `${JSON.stringify(before.byType)} / ${JSON.stringify(after.byType)}` },
    {
      figure: "server RSS warm / after (MiB)",
      value: `${mb(baseline.server)} / ${mb(final.server)} (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %)`,
    },
    { figure: "server V8 heap used warm / after (MiB)", value: `${mb(baseline.heap)} / ${mb(final.heap)}` },
    { figure: "server external memory warm / after (MiB)", value: `${mb(baseline.external)} / ${mb(final.external)}` },
    { figure: "server RSS/heap while rendering, every 10 % (MiB)", value: trend.join(" ") },
    { figure: "Chromium Pss warm / after (MiB)", value: `${mb(baseline.chromium)} / ${mb(final.chromium)}` },
  ];
  console.log(`\n${table(figures, ["figure", "value"])}\n`);
  exitCode = failures.length === 0 ? 0 : 1;
  console.log(exitCode === 0 ? "soak: all checks passed" : `soak: ${failures.length} checks failed`);
} catch (error) {
  console.error(`soak: ${error.stack ?? error}\n--- server output ---\n${server.output()}`);
} finally {
  clearInterval(groupSampler);
  for (const res of hanging) res.destroy();
  await server.stop();
  site.closeAllConnections();
  site.close();
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
process.exit(exitCode);
