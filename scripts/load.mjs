// `npm run load`: overload of a real server (issue 14, "Load"). Starts `renderkit serve` from the
// built CLI with a small capacity (2 renders at once, 10 waiting), fires far more concurrent sync
// renders at it than it can take, and checks what clients see: every request answered, the ones
// it took rendered (200), the excess refused at once with 503 ServiceUnavailable or 429 and a
// Retry-After header, the server up and rendering afterwards, and its peak resident memory bounded.
// Prints figures; exits 1 on a failed check.
//
//   npm run load                                   200 requests, 100 at a time
//   npm run load -- --share 1000                   the queue bound (503) before the project's share (429)
//   options: --requests N  --concurrency N  --capacity N (renders at once)  --queue N (maxQueued)
//            --share N (maxQueuedPerProject)  --delay MS (per render)  --max-rss-mb N (bound of the server's peak RSS)

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { descendants, freePort, pssKiB, rssKiB, serve, table } from "../test/faults/harness.mjs";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "200" },
    concurrency: { type: "string", default: "100" },
    capacity: { type: "string", default: "2" },
    queue: { type: "string", default: "10" },
    delay: { type: "string", default: "500" },
    share: { type: "string" },
    "max-rss-mb": { type: "string", default: "512" },
  },
});
const REQUESTS = Number(args.requests);
const KEY = "sk_load_0123456789abcdef0123";

const dir = mkdtempSync(join(tmpdir(), "renderkit-load-"));
mkdirSync(join(dir, "tmp"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = await serve(
  join(dir, "config.json"),
  {
    port,
    host: "127.0.0.1",
    dataDir: join(dir, "data"),
    concurrency: Number(args.capacity),
    maxQueued: Number(args.queue),
    ...(args.share ? { maxQueuedPerProject: Number(args.share) } : {}),
    adblock: { lists: [] },
    projects: [
      {
        id: "load",
        secretKey: KEY,
        publishableKey: "pk_load_key",
        webhookSecret: "whsec_load_0123456789abcdef",
        rateLimit: { requests: 1_000_000, perSeconds: 60 },
      },
    ],
  },
  { TMPDIR: join(dir, "tmp") },
);

const render = async (n, delay = Number(args.delay)) => {
  const started = performance.now();
  try {
    const response = await fetch(`${base}/v1/render/sync`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ html: `<body style="margin:0"><h1>load ${n}</h1></body>`, width: 640, height: 400, delay }),
    });
    const body = await response.json().catch(() => undefined);
    const retryAfter = response.headers.get("retry-after");
    return { status: response.status, code: body?.error?.code, retryAfter, ms: performance.now() - started };
  } catch (error) {
    return { status: `error ${error.cause?.code ?? error.message}`, ms: performance.now() - started };
  }
};

// Memory, sampled every 100 ms: the server's resident set, and the proportional set (Pss) of the
// server with everything it runs (Chromium), which counts shared pages once.
let peakServer = 0;
let peakTree = 0;
const sampler = setInterval(() => {
  peakServer = Math.max(peakServer, rssKiB(server.pid));
  peakTree = Math.max(
    peakTree,
    descendants(server.pid).reduce((sum, p) => sum + pssKiB(p.pid), 0),
  );
}, 100);
// Liveness while overloaded: the slowest /health answer.
let slowestHealth = 0;
let healthFailures = 0;
const prober = setInterval(async () => {
  const t = performance.now();
  const ok = await fetch(`${base}/health`).then(
    (r) => r.ok,
    () => false,
  );
  slowestHealth = Math.max(slowestHealth, performance.now() - t);
  if (!ok) healthFailures++;
}, 500);

const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
};

let exitCode = 1;
try {
  const warm = await render("warm-up", 0);
  if (warm.status !== 200) throw new Error(`the warm-up render answered ${warm.status} ${warm.code ?? ""}`);
  const idleServer = rssKiB(server.pid);
  console.log(
    `load: ${REQUESTS} sync renders, ${args.concurrency} at a time, against ${args.capacity} at once + ${args.queue} queued`,
  );
  const outcomes = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Number(args.concurrency) }, async () => {
      while (next < REQUESTS) outcomes.push(await render(next++));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(prober);
  const after = await render("after", 0);

  const groups = new Map();
  for (const o of outcomes) {
    const key = `${o.status}${o.code ? ` ${o.code}` : ""}`;
    const group = groups.get(key) ?? [];
    group.push(o);
    groups.set(key, group);
  }
  const rows = [...groups].map(([answer, list]) => ({
    answer,
    count: list.length,
    "p50 ms": percentile(
      list.map((o) => o.ms),
      50,
    ),
    "p95 ms": percentile(
      list.map((o) => o.ms),
      95,
    ),
    "Retry-After": [...new Set(list.map((o) => o.retryAfter ?? "-"))].join(","),
  }));
  console.log(`\n${table(rows, ["answer", "count", "p50 ms", "p95 ms", "Retry-After"])}\n`);

  const refused = outcomes.filter((o) => o.status === 503 || o.status === 429);
  const rendered = outcomes.filter((o) => o.status === 200);
  check(
    rendered.length + refused.length === outcomes.length,
    "every request answered 200, 503 or 429 (no error, no other status)",
  );
  check(rendered.length > 0 && refused.length > 0, `some rendered (${rendered.length}), the excess refused (${refused.length})`);
  check(
    refused.every((o) => Number(o.retryAfter) >= 1),
    "every 503 and 429 carries Retry-After (whole seconds, at least 1)",
  );
  check(
    refused.every((o) => (o.status === 503 ? o.code === "ServiceUnavailable" : o.code === "RateLimitExceededError")),
    "every refusal names its code (503 ServiceUnavailable, 429 RateLimitExceededError)",
  );
  check(
    server.alive() && healthFailures === 0,
    `the server stayed up; /health always answered (slowest ${Math.round(slowestHealth)} ms)`,
  );
  check(after.status === 200, "a render after the load succeeds");
  check(peakServer / 1024 <= Number(args["max-rss-mb"]), `peak server RSS within ${args["max-rss-mb"]} MiB`);

  const mb = (kib) => (kib / 1024).toFixed(0);
  const figures = [
    { figure: "requests / wall time", value: `${REQUESTS} in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(1)}/s)` },
    { figure: "rendered / refused", value: `${rendered.length} / ${refused.length}` },
    { figure: "server RSS idle / peak (MiB)", value: `${mb(idleServer)} / ${mb(peakServer)}` },
    { figure: "server + Chromium Pss peak (MiB)", value: mb(peakTree) },
    { figure: "slowest /health while loaded (ms)", value: Math.round(slowestHealth) },
  ];
  console.log(`\n${table(figures, ["figure", "value"])}\n`);
  exitCode = failures.length === 0 ? 0 : 1;
  console.log(exitCode === 0 ? "load: all checks passed" : `load: ${failures.length} checks failed`);
} catch (error) {
  console.error(`load: ${error.stack ?? error}\n--- server output ---\n${server.output()}`);
} finally {
  clearInterval(sampler);
  clearInterval(prober);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
