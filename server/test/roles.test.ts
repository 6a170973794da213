import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Renderer } from "@renderkit/core";
import { afterAll, describe, expect, it } from "vitest";
import { decode } from "../../test/helpers/image.js";
import { freePort, startRedis, type TestRedis } from "../../test/helpers/redis.js";
import { ConfigError } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { startServer } from "../dist/serve.js";
import { DataDirLocked, LOCK_FILE } from "../dist/state/data-dir-lock.js";
import { type RunningWorker, startWorker } from "../dist/worker.js";
import { api } from "./helpers.js";
import { configOf, exited, PROJECT, refusal, run, settings, silent, useProcesses } from "./processes.js";

/**
 * Process roles as an operator tries them (issue 10): `renderkit serve`, `serve --role api`,
 * `renderkit worker` and `renderkit doctor` from the built CLI, `startServer`/`startWorker` when
 * embedding; one process per data directory in file mode; an API node and a worker on a real
 * redis-server. Every process, server and directory a test starts is stopped in `afterEach`.
 */

const { cleanup, fresh, server, serveProcess } = useProcesses("renderkit-roles-");
/** /ready shows its figures (the role) only with the operator's (metrics) token. */
const OPERATOR = "operator-token-0123456789abcdef";
const operator = { headers: { authorization: `Bearer ${OPERATOR}` } };

let redis: TestRedis | undefined;
afterAll(async () => {
  await redis?.stop();
});

/** The one redis-server of this file, started by the first test that needs it. */
async function sharedRedis(): Promise<TestRedis> {
  redis ??= await startRedis();
  return redis;
}

/** A config file for the CLI (and the same settings for `loadConfig`). */
async function writeConfig(at: string, config: Record<string, unknown>): Promise<string> {
  const file = join(at, "renderkit.json");
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

async function worker(config: ServerConfig): Promise<RunningWorker> {
  const running = await startWorker(config, { logger: silent });
  cleanup.push(() => running.close());
  return running;
}

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, ...]; undefined once gone. */
function procStat(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** A process by pid and start time (field 22), so that a reused pid is never taken for it. */
interface Proc {
  pid: number;
  started: string | undefined;
}

/** The processes whose parent is `pid`, recursively (Linux /proc). */
function descendants(pid: number): Proc[] {
  const children: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(entry);
    if (fields && Number(fields[1]) === pid) children.push({ pid: Number(entry), started: fields[19] });
  }
  return children.flatMap((child) => [child, ...descendants(child.pid)]);
}

/**
 * `renderkit serve --config <file>`, ready once `/health` answers. `crash()` is kill -9 of the
 * server alone, as a crash does; the processes it started (browsers) are killed after the test.
 */
async function crashableServe(configFile: string, url: string): Promise<{ child: ChildProcess; crash(): Promise<void> }> {
  const child = await serveProcess(configFile, url);
  // Recorded while the server lives: once it is dead its children belong to init.
  const started: Proc[] = [];
  const crash = async () => {
    // Only while it runs: the pid of a reaped process may already be someone else's.
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.pid) started.push(...descendants(child.pid));
    child.kill("SIGKILL");
    await exited(child);
  };
  // Runs before the stop `serveProcess` registered (newest first), which then finds the server gone.
  cleanup.push(async () => {
    await crash();
    // The server's watchdog kills its browser and removes the profile once the server is gone;
    // only what is still there after a while is killed here (that would leave the profile).
    const alive = (proc: Proc) => {
      const fields = procStat(proc.pid);
      return Boolean(fields && fields[0] !== "Z" && fields[19] === proc.started);
    };
    for (let i = 0; i < 150 && started.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    for (const proc of started.filter(alive)) {
      try {
        process.kill(proc.pid, "SIGKILL");
      } catch {}
    }
  });
  return { child, crash };
}

const lockOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, LOCK_FILE), "utf8")) as { pid: number };

describe("roles that need redis, without it", () => {
  it("renderkit serve --role api exits 2 naming redis, before it listens or touches the data directory", async () => {
    const at = await fresh("api-no-redis");
    const dataDir = join(at, "data");
    const file = await writeConfig(at, { port: 0, host: "127.0.0.1", dataDir });
    const result = await run(["serve", "--role", "api", "--config", file], at);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("renderkit: invalid config: renderkit serve --role api needs redis");
    expect(result.stderr).toContain("redis.url or RENDERKIT_REDIS_URL");
    // Refused up front: no "listening" line, no default project whose keys scroll past, no lock left.
    expect(result.stdout).not.toContain("listening");
    expect(result.stdout).not.toContain("created the default project");
    expect(existsSync(join(dataDir, "projects.json"))).toBe(false);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it("renderkit worker exits 2 naming redis, with or without a port and baseUrl", async () => {
    const at = await fresh("worker-no-redis");
    for (const extra of [{}, { port: 0 }, { port: 0, baseUrl: "http://127.0.0.1:9" }]) {
      const file = await writeConfig(at, { host: "127.0.0.1", dataDir: join(at, "data"), projects: [PROJECT], ...extra });
      const result = await run(["worker", "--config", file], at);
      expect(result.code, JSON.stringify(extra)).toBe(2);
      expect(result.stderr).toContain("renderkit: invalid config: renderkit worker needs redis");
      expect(result.stdout).not.toContain("worker started");
    }
  });

  it("--role bogus exits 2 with the usage text", async () => {
    const at = await fresh("bogus");
    const result = await run(["serve", "--role", "bogus"], at);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("renderkit: --role must be one of all, api");
    expect(result.stderr).toContain("Usage: renderkit <command> [options]");
    // A worker has no role to choose: the option is unknown there.
    const onWorker = await run(["worker", "--role", "api"], at);
    expect(onWorker.code).toBe(2);
    expect(onWorker.stderr).toContain("Usage: renderkit");
  });

  it("embedding: startServer({ role: 'api' }) and startWorker refuse with a ConfigError naming redis", async () => {
    const dataDir = await fresh("embed-no-redis");
    const config = await configOf(settings(dataDir));
    const api = await refusal(startServer(config, { logger: silent, role: "api" }));
    expect(api).toBeInstanceOf(ConfigError);
    expect(api.message).toMatch(/needs redis \(config key redis\.url or RENDERKIT_REDIS_URL\)/);
    const work = await refusal(startWorker(config, { logger: silent }));
    expect(work).toBeInstanceOf(ConfigError);
    expect(work.message).toMatch(/needs redis/);
    // Nothing held: a plain server starts on that directory straight away.
    await (await server(config)).close();
  });
});

describe("one process per data directory in file mode", () => {
  it("a second startServer is refused naming the pid and the lock file; once the first closes a third starts", async () => {
    const dataDir = await fresh("lock");
    const config = await configOf(settings(dataDir));
    const first = await server(config);
    const lockFile = join(dataDir, LOCK_FILE);
    expect(lockOf(dataDir).pid).toBe(process.pid);

    const second = await refusal(startServer(config, { logger: silent }));
    expect(second).toBeInstanceOf(DataDirLocked);
    expect(second.message).toContain(`This process already runs a renderkit server (pid ${process.pid} on `);
    expect(second.message).toContain(lockFile);
    expect(second.message).toContain(dataDir);
    // The refused start left the first one's lock and service alone.
    expect(lockOf(dataDir).pid).toBe(process.pid);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);

    await first.close();
    expect(existsSync(lockFile)).toBe(false);
    const third = await server(config);
    expect((await fetch(`${third.url}/ready`)).status).toBe(200);
    expect(lockOf(dataDir).pid).toBe(process.pid);
  });

  it("a second renderkit serve process on the same dataDir exits, naming the holder's pid and the lock file", async () => {
    const at = await fresh("lock-cli");
    const dataDir = join(at, "data");
    await server(await configOf(settings(dataDir)));
    const file = await writeConfig(at, settings(dataDir));
    const result = await run(["serve", "--config", file], at);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Another renderkit process (pid ${process.pid}`);
    expect(result.stderr).toContain(`Lock file: ${join(dataDir, LOCK_FILE)}`);
    expect(result.stdout).not.toContain("listening");
    expect(lockOf(dataDir).pid).toBe(process.pid);
  });

  it("the lock of a renderkit serve killed with SIGKILL is taken over at once", async () => {
    const at = await fresh("lock-kill");
    const dataDir = join(at, "data");
    const port = await freePort();
    const file = await writeConfig(at, settings(dataDir, { port }));
    const url = `http://127.0.0.1:${port}`;
    const { child, crash } = await crashableServe(file, url);
    expect(lockOf(dataDir).pid).toBe(child.pid);
    // A server that has worked (a browser running, records and queue on disk), then crashes.
    const rendered = await api(url, "/v1/render/sync", { key: PROJECT.secretKey, json: { html: "<p>before</p>" } });
    expect(rendered.status, rendered.text).toBe(200);
    // While it lives, this process may not start on its directory either.
    const config = await configOf(settings(dataDir));
    const refused = await refusal(startServer(config, { logger: silent }));
    expect(refused.message).toContain(`Another renderkit process (pid ${child.pid} on `);
    expect(refused.message).toContain(join(dataDir, LOCK_FILE));
    await crash();
    expect(child.signalCode).toBe("SIGKILL");
    // The dead process could not remove its lock: the next start must see that it is stale.
    expect(lockOf(dataDir).pid).toBe(child.pid);

    const next = await server(config);
    expect(lockOf(dataDir).pid).toBe(process.pid);
    // Taken over with what the dead server kept on disk.
    const status = await api(next.url, `/v1/render/${rendered.body.renderId}`, { key: PROJECT.secretKey });
    expect(status.body.status).toBe("succeeded");
  });

  it("with redis configured, two servers on one dataDir both run", async () => {
    const { url } = await sharedRedis();
    const dataDir = await fresh("lock-redis");
    const config = await configOf(settings(dataDir, { redis: { url, prefix: basename(dataDir) }, metrics: { token: OPERATOR } }));
    const one = await server(config);
    const two = await server(config);
    expect(one.url).not.toBe(two.url);
    for (const node of [one, two]) {
      const ready = await api(node.url, "/ready", operator);
      expect(ready.status).toBe(200);
      expect(ready.body.role).toBe("all");
    }
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });
});

/** Browser launches and live browsers of every engine of `renderer`. */
function launches(renderer: Renderer): { launches: number; browsers: number } {
  const stats = renderer.engines.map((name) => renderer.engine(name).stats());
  return {
    launches: stats.reduce((sum, s) => sum + s.launches, 0),
    browsers: stats.reduce((sum, s) => sum + s.browsers, 0),
  };
}

describe("an API-only node and a worker on one redis-server", () => {
  it("the API answers a sync render with the PNG the worker rendered; only the worker launched a browser", async () => {
    const { url: redisUrl } = await sharedRedis();
    const dataDir = await fresh("api-worker");
    const port = await freePort();
    const config = await configOf(
      settings(dataDir, {
        port,
        redis: { url: redisUrl, prefix: basename(dataDir), lockDurationMs: 5_000, stalledIntervalMs: 2_000 },
        metrics: { token: OPERATOR },
      }),
    );
    const apiNode = await server(config, { role: "api" });
    expect(apiNode.url).toBe(`http://127.0.0.1:${port}`);
    const workerNode = await worker(config);

    const ready = await api(apiNode.url, "/ready", operator);
    expect(ready.status).toBe(200);
    expect(ready.body.role).toBe("api");
    expect(launches(apiNode.renderer)).toEqual({ launches: 0, browsers: 0 });

    const answer = await api(apiNode.url, "/v1/render/sync", {
      key: PROJECT.secretKey,
      json: {
        html: '<body style="margin:0;background:rgb(255,0,0)"><div style="width:40px;height:30px;background:rgb(0,0,255)"></div></body>',
        format: "png",
        width: 320,
        height: 200,
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.renderUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
    const file = await fetch(answer.body.renderUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    const image = await decode(Buffer.from(await file.arrayBuffer()));
    expect(image.format).toBe("png");
    expect([image.width, image.height]).toEqual([320, 200]);
    expect(image.at(10, 10)).toEqual([0, 0, 255, 255]);
    expect(image.at(200, 100)).toEqual([255, 0, 0, 255]);

    // The render ran on the worker: the API node's engines never launched a browser.
    expect(launches(apiNode.renderer)).toEqual({ launches: 0, browsers: 0 });
    expect(launches(workerNode.renderer).launches).toBeGreaterThan(0);
  });
});

describe("renderkit doctor", () => {
  it("on a file-mode config: exits 0 and prints every check; --json prints the same checks as JSON", async () => {
    const at = await fresh("doctor");
    const file = await writeConfig(at, { dataDir: join(at, "data") });
    const text = await run(["doctor", "--config", file], at);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    for (const name of ["config", "chromium", "ffmpeg", "pdftocairo", "fonts", "data directory"]) {
      expect(text.stdout).toMatch(new RegExp(`^ok {4}${name} `, "m"));
    }
    expect(text.stdout).not.toMatch(/^fail /m);
    expect(text.stdout).toMatch(/\n\d+ ok, \d+ warnings?, 0 failed\n$/);

    const json = await run(["doctor", "--config", file, "--json"], at);
    expect(json.code).toBe(0);
    const checks = JSON.parse(json.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.length).toBeGreaterThan(5);
    expect(checks.filter((check) => check.status === "fail")).toEqual([]);
    expect(checks.find((check) => check.name === "chromium")).toMatchObject({ status: "ok" });
    expect(checks.some((check) => check.name === "redis")).toBe(false);
  });

  it("with redis.url on a closed port: exits 1 and names the address", async () => {
    const at = await fresh("doctor-redis");
    const port = await freePort();
    const file = await writeConfig(at, { dataDir: join(at, "data"), redis: { url: `redis://127.0.0.1:${port}` } });
    const result = await run(["doctor", "--config", file, "--role", "api"], at);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^fail {2}redis +Redis at redis://127\\.0\\.0\\.1:${port}/? is unreachable`, "m"));
    expect(result.stdout).toMatch(new RegExp(`fix: start Redis at redis://127\\.0\\.0\\.1:${port}`));
    expect(result.stdout).toMatch(/\n\d+ ok, \d+ warnings?, [1-9]\d* failed\n$/);
    const json = await run(["doctor", "--config", file, "--role", "api", "--json"], at);
    expect(json.code).toBe(1);
    const redisLines = (JSON.parse(json.stdout) as { name: string; status: string; detail: string }[]).filter(
      (check) => check.name === "redis",
    );
    expect(redisLines).toEqual([
      expect.objectContaining({ status: "fail", detail: expect.stringContaining(`127.0.0.1:${port}`) }),
    ]);
  });
});
