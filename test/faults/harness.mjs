// What `npm run soak` and `npm run load` (scripts/) share: the real server from the built CLI as a
// child process, and readings of what it runs from /proc (Linux) and from Chromium's DevTools.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";

const require = createRequire(import.meta.url);
/** The built `renderkit` CLI, as operators run it. */
export const CLI = join(require.resolve("@renderkit/server"), "..", "cli.js");

/** A TCP port nothing listens on right now. */
export async function freePort() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

/** Polls `check` every 250 ms until it returns true (true) or `timeoutMs` pass (false). */
export async function untilTrue(check, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const children = new Set();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/**
 * Writes `config` to `file`, runs `renderkit serve --config file` (log level warn, `env` added) and
 * resolves once `/health` answers.
 */
export async function serve(file, config, env = {}) {
  writeFileSync(file, JSON.stringify(config, null, 2));
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith("RENDERKIT_") && name !== "RENDERKIT_CHROMIUM") delete clean[name];
  const child = spawn(process.execPath, [CLI, "serve", "--config", file], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...clean, RENDERKIT_LOG_LEVEL: "warn", ...env },
  });
  children.add(child);
  let out = "";
  let inspector;
  const collect = (chunk) => {
    out = (out + chunk).slice(-20_000);
    inspector ??= out.match(/Debugger listening on (ws:\/\/\S+)/)?.[1];
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise((r) => child.once("exit", r));
  const handle = {
    pid: child.pid,
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => out,
    /** The inspector's address when started with `--inspect` (NODE_OPTIONS in `env`). */
    inspector: () => inspector,
    async stop() {
      if (!handle.alive()) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
      children.delete(child);
    },
  };
  const url = `http://127.0.0.1:${config.port}/health`;
  const up = await untilTrue(async () => {
    if (!handle.alive()) throw new Error("exited");
    return (await fetch(url)).ok;
  }, 120_000);
  if (!up) {
    child.kill("SIGKILL");
    throw new Error(`renderkit serve did not start:\n${out}`);
  }
  return handle;
}

function read(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // the process exited while we looked
  }
}

/** Every live process: pid, parent, process group and command line (Linux /proc). */
export function listProcesses() {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") continue;
    const cmdline = (read(`/proc/${entry}/cmdline`) ?? "").split("\0").join(" ").trim();
    out.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]), cmdline });
  }
  return out;
}

/** `pid` and every process under it. */
export function descendants(pid, all = listProcesses()) {
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (tree.has(p.ppid) && !tree.has(p.pid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => tree.has(p.pid));
}

/** Resident memory of a process in KiB (0 once it is gone). */
export function rssKiB(pid) {
  return Number(read(`/proc/${pid}/status`)?.match(/^VmRSS:\s+(\d+)/m)?.[1] ?? 0);
}

/**
 * Proportional memory of a process in KiB (Pss: shared pages split between their users), so that a
 * sum over Chromium's processes counts shared memory once; 0 once it is gone.
 */
export function pssKiB(pid) {
  return Number(read(`/proc/${pid}/smaps_rollup`)?.match(/^Pss:\s+(\d+)/m)?.[1] ?? 0);
}

/** The Chromium browsers (not their helpers) running with a profile under `tmp`: pid and profile directory. */
export function browsersIn(tmp) {
  return listProcesses()
    .filter((p) => p.cmdline.includes(`--user-data-dir=${tmp}`) && !p.cmdline.includes("--type="))
    .map((p) => ({ pid: p.pid, profile: p.cmdline.match(/--user-data-dir=(\S+)/)[1] }));
}

/** A WebSocket class: Node's own (22+), else the `ws` package the Puppeteer engine installs. */
async function webSocketClass() {
  if (globalThis.WebSocket) return globalThis.WebSocket;
  const fromPuppeteer = createRequire(require.resolve("@renderkit/engine-puppeteer"));
  return createRequire(fromPuppeteer.resolve("puppeteer-core"))("ws");
}

/** Runs `methods` in order over the DevTools protocol at `url` (a browser's or Node's inspector); returns their results. */
async function devtools(url, methods) {
  const WebSocket = await webSocketClass();
  const socket = new WebSocket(url);
  const pending = new Map();
  let next = 0;
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    pending.get(message.id)?.(message);
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach DevTools at ${url}`));
  });
  const call = (method) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, (message) => (message.error ? reject(new Error(message.error.message)) : resolve(message.result)));
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    const results = [];
    for (const method of methods) results.push(await call(method));
    return results;
  } finally {
    socket.close();
  }
}

/**
 * Asks the browser whose profile is `profile` over its DevTools endpoint (DevToolsActivePort) how
 * many browser contexts (besides the default one) and page targets it has: Chromium's own count.
 */
export async function devtoolsCounts(profile) {
  const [port, path] = (read(join(profile, "DevToolsActivePort")) ?? "").split("\n");
  if (!port || !path) throw new Error(`no DevToolsActivePort in ${profile}`);
  const [{ browserContextIds }, { targetInfos }] = await devtools(`ws://127.0.0.1:${port}${path}`, [
    "Target.getBrowserContexts",
    "Target.getTargets",
  ]);
  return { contexts: browserContextIds.length, pages: targetInfos.filter((t) => t.type === "page").length };
}

/**
 * A full garbage collection in a Node process started with `--inspect=127.0.0.1:0`, over its
 * inspector at `url`: memory figures taken after it do not depend on when V8 last collected.
 */
export async function collectGarbage(url) {
  if (!url) throw new Error("the server was not started with --inspect");
  await devtools(url, ["HeapProfiler.collectGarbage", "HeapProfiler.collectGarbage"]);
}

/** The figures the leak checks read from the server's `/metrics` (metrics enabled, with `token`); memory in KiB. */
export async function serverMetrics(base, token, engines) {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const value = (name, label) => Number(text.match(new RegExp(`^${name}\\{${label}\\} (\\S+)$`, "m"))?.[1] ?? Number.NaN);
  const plain = (name) => Number(text.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1] ?? Number.NaN);
  const perEngine = (name) => Object.fromEntries(engines.map((e) => [e, value(name, `engine="${e}"`)]));
  return {
    heapUsed: plain("nodejs_heap_size_used_bytes") / 1024,
    external: plain("nodejs_external_memory_bytes") / 1024,
    waiting: value("renderkit_queue_renders", 'state="waiting"'),
    active: value("renderkit_queue_renders", 'state="active"'),
    pages: perEngine("renderkit_browser_pages"),
    browsers: perEngine("renderkit_browsers"),
    launches: perEngine("renderkit_browser_launches_total"),
  };
}

/** Files under `dataDir` a write cut short leaves (`*.tmp`), and jobs still queued or set aside. */
export function dataLeftovers(dataDir, at = dataDir) {
  const out = [];
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    const full = join(at, entry.name);
    if (entry.isDirectory()) out.push(...dataLeftovers(dataDir, full));
    else if (/\.tmp/.test(entry.name) || /\/queue\/(waiting|active|broken)\//.test(full))
      out.push(full.slice(dataDir.length + 1));
  }
  return out;
}

/** Rows as an aligned text table. */
export function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((v, i) => String(v).padEnd(widths[i])).join("  ");
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(columns.map((c) => r[c])))].join("\n");
}
