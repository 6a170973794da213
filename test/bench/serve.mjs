import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, freePort } from "../faults/harness.mjs";
import { processTreeSync } from "./pss.mjs";

/** Serves `html` on a loopback port for a benchmark: `{ url, server }`; close the server when done. */
export async function serveHtml(html) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(html);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

/** Serves each `{ name: html }` at `/<name>` on one loopback port: `{ server, host, urls: { name: url } }`. */
export async function servePages(pages) {
  const server = createServer((req, res) => {
    const html = pages[req.url.slice(1).split("?")[0]];
    res.writeHead(html === undefined ? 404 : 200, { "content-type": "text/html" });
    res.end(html ?? "not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${server.address().port}`;
  const urls = Object.fromEntries(Object.keys(pages).map((name) => [name, `http://${host}/${name}`]));
  return { server, host, urls };
}

export const BENCH_KEY = "sk_bench_0123456789abcdef0123";

const spawned = new Set();
/** SIGKILLs `child` and its descendants (its browsers), deepest first. */
function killTree(child) {
  for (const pid of processTreeSync(child.pid).reverse()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
process.once("exit", () => {
  for (const child of spawned) killTree(child);
});

/**
 * Spawns `renderkit serve` on files with a fresh data dir and a free port, one project (BENCH_KEY),
 * the loopback `site` host allowed, no ad-block lists (no network). Answers at once, before the
 * server listens: `{ child, url, output(), stop() }`; `stop()` ends it and removes its data dir.
 */
export async function spawnServer({ engine, concurrency = 2, site }) {
  const dir = mkdtempSync(join(tmpdir(), "renderkit-bench-serve-"));
  const port = await freePort();
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      host: "127.0.0.1",
      port,
      dataDir: join(dir, "data"),
      engine,
      concurrency,
      allowPrivateNetworks: [site],
      maxQueued: 10000,
      adblock: { lists: [] },
      logLevel: "warn",
      projects: [
        {
          id: "bench",
          secretKey: BENCH_KEY,
          publishableKey: "pk_bench_key",
          webhookSecret: "whsec_bench_0123456789abcdef",
          rateLimit: { requests: 1000000, perSeconds: 60 },
        },
      ],
    }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--config", config], { stdio: ["ignore", "pipe", "pipe"] });
  spawned.add(child);
  let out = "";
  const keep = (d) => {
    out = (out + d).slice(-4000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => killTree(child), 10_000);
        await exited;
        clearTimeout(timer);
      }
      spawned.delete(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls `/health` until the server answers: any status (`ready: false`; it answers 503 "Starting up"
 * until the engines are set up) or 200 (`ready: true`). Throws if the child exits or `ms` pass.
 */
export async function waitAnswering(server, { ready = true, ms = 60_000 } = {}) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (server.child.exitCode !== null) throw new Error(`renderkit serve exited ${server.child.exitCode}: ${server.output()}`);
    const status = await fetch(`${server.url}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (ready ? status === 200 : status > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`renderkit serve did not answer in ${ms} ms: ${server.output()}`);
}

/** One `POST /v1/render/sync` png, then GET its `renderUrl`: the PNG's bytes. */
export async function renderOverHttp(server, options) {
  const answer = await fetch(`${server.url}/v1/render/sync`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ format: "png", wait_until: "loaded", ...options }),
  });
  if (answer.status !== 200) throw new Error(`sync render answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  const { renderUrl } = await answer.json();
  const file = await fetch(renderUrl);
  if (!file.ok) throw new Error(`GET renderUrl answered ${file.status}`);
  return new Uint8Array(await file.arrayBuffer());
}
