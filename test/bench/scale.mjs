// Scale-out throughput (issue 10): the same async renders through one `renderkit serve` on files,
// then through an API node with 1 and with 2 `renderkit worker` processes on Redis and S3 (a real
// redis-server and s3rver on loopback). Renders/s from the first submit to the last end, one run.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { CLI, freePort } from "../faults/harness.mjs";
import { serveHtml } from "./serve.mjs";
import { table } from "./stats.mjs";

const N = Number(process.env.BENCH_N ?? 40);
const KEY = "sk_bench_0123456789abcdef0123";
const PAGE = `<!doctype html><style>body{font-family:sans-serif;margin:40px}</style><h1>scale bench</h1>
<p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p><table>${"<tr><td>a</td><td>b</td></tr>".repeat(20)}</table>`;

const children = new Set();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function start(args, ready) {
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RENDERKIT_LOG_LEVEL: "warn" },
  });
  children.add(child);
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited:\n${out}`);
    if (await ready(out)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(" ")} never got ready:\n${out}`);
}

async function stop(child) {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  children.delete(child);
}

/** Submits N async renders and waits until every one ended; renders/s over the whole run. */
async function run(api, site) {
  const started = performance.now();
  const ids = [];
  for (let i = 0; i < N; i++) {
    const answer = await fetch(`${api}/v1/render/async`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site}?n=${i}` }),
    });
    if (answer.status !== 201) throw new Error(`submit answered ${answer.status}: ${await answer.text()}`);
    ids.push((await answer.json()).renderId);
  }
  const open = new Set(ids);
  let failed = 0;
  while (open.size > 0) {
    for (const id of [...open]) {
      const status = (await (await fetch(`${api}/v1/render/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json())
        .status;
      if (status === "succeeded" || status === "failed") {
        open.delete(id);
        if (status === "failed") failed++;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { rps: N / ((performance.now() - started) / 1000), failed };
}

export async function benchScale() {
  const dir = mkdtempSync(join(tmpdir(), "renderkit-bench-scale-"));
  const { server: site, url: siteUrl } = await serveHtml(PAGE);
  const s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: join(dir, "s3"),
    resetOnClose: true,
    configureBuckets: [{ name: "renders", configs: [] }],
  });
  const { port: s3Port } = await s3.run();
  const redisPort = await freePort();
  const redis = spawn(
    "redis-server",
    ["--bind", "127.0.0.1", "--port", String(redisPort), "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  children.add(redis);
  await new Promise((r) => setTimeout(r, 500));
  const project = {
    id: "bench",
    secretKey: KEY,
    publishableKey: "pk_bench_key",
    webhookSecret: "whsec_bench_0123456789abcdef",
    rateLimit: { requests: 100000, perSeconds: 60 },
  };
  const config = (name, port, extra = {}) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        host: "127.0.0.1",
        port,
        baseUrl: `http://127.0.0.1:${port}`,
        dataDir: join(dir, name),
        allowPrivateNetworks: ["127.0.0.1"],
        maxQueued: 10000,
        projects: [project],
        ...extra,
      }),
    );
    return file;
  };
  const shared = {
    redis: { url: `redis://127.0.0.1:${redisPort}`, prefix: "bench" },
    storage: {
      kind: "s3",
      bucket: "renders",
      endpoint: `http://127.0.0.1:${s3Port}`,
      region: "us-east-1",
      forcePathStyle: true,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    },
  };
  const healthy = (url) => async () =>
    fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
  const rows = [];
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // One process on files: the single-node default.
    let api = await start([CLI, "serve", "--config", config("single", port)], healthy(url));
    await run(url, siteUrl); // warm-up: browsers launched, pages cached
    const single = await run(url, siteUrl);
    rows.push({
      setup: "1 process, files (serve)",
      "renders/s": single.rps.toFixed(2),
      failed: single.failed,
      "vs single": "1.00",
    });
    await stop(api);
    api = await start([CLI, "serve", "--role", "api", "--config", config("api", port, shared)], healthy(url));
    const workers = [];
    for (const count of [1, 2]) {
      while (workers.length < count) {
        const name = `worker-${workers.length + 1}`;
        workers.push(
          await start([CLI, "worker", "--config", config(name, port, shared)], async (out) => out.includes("worker started")),
        );
      }
      await run(url, siteUrl);
      const result = await run(url, siteUrl);
      rows.push({
        setup: `API + ${count} worker${count > 1 ? "s" : ""}, Redis + S3`,
        "renders/s": result.rps.toFixed(2),
        failed: result.failed,
        "vs single": (result.rps / single.rps).toFixed(2),
      });
    }
    for (const w of workers) await stop(w);
    await stop(api);
  } finally {
    for (const child of [...children]) child.kill("SIGKILL");
    site.close();
    await s3.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  return `scale-out: ${N} async PNG renders of a loopback page, submit to last end (each worker: concurrency 2)\n${table(rows, ["setup", "renders/s", "failed", "vs single"])}`;
}
