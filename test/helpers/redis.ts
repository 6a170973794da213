import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

/** A real `redis-server` (Debian package) on a free loopback port, owned by the test that started it. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
  /** Starts a fresh server on the same port (after `stop()`): an outage that ends. */
  restart(): Promise<void>;
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Sends PING over a raw socket; true once the server answers PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Starts `redis-server` without persistence on a free loopback port and waits until it answers.
 * Throws with the server's output when it does not start (for instance when the package is missing).
 */
export async function startRedis(): Promise<TestRedis> {
  let current = await launch(await freePort());
  return {
    url: current.url,
    port: current.port,
    stop: () => current.stop(),
    async restart() {
      current = await launch(current.port);
    },
  };
}

async function launch(port: number): Promise<Omit<TestRedis, "restart">> {
  const dir = mkdtempSync(join(tmpdir(), "renderkit-redis-"));
  const child = spawn(
    "redis-server",
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  running.add(child);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output = (output + d.toString()).slice(-4_000);
  });
  child.stderr?.on("data", (d: Buffer) => {
    output = (output + d.toString()).slice(-4_000);
  });
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    if (await ping(port)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          if (child.exitCode === null) {
            const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
            child.kill("SIGTERM");
            const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
            await exited;
            clearTimeout(timer);
          }
          running.delete(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    const failed = await Promise.race([spawnError, new Promise<undefined>((r) => setTimeout(r, 100))]);
    if (failed) throw new Error(`redis-server could not be started: ${failed.message}`);
  }
  child.kill("SIGKILL");
  running.delete(child);
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not answer on port ${port}; its output:\n${output}`);
}

/**
 * One redis-server for the calling test file: started before its tests, stopped after them. The
 * handle reads the running server, so use it in tests and hooks, not when the file loads.
 */
export function useRedis(): TestRedis {
  let started: TestRedis | undefined;
  beforeAll(async () => {
    started = await startRedis();
  });
  afterAll(async () => {
    await started?.stop();
    started = undefined;
  });
  const current = (): TestRedis => {
    if (!started) throw new Error("useRedis(): the redis-server runs only while the file's tests do");
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    stop: () => current().stop(),
    restart: () => current().restart(),
  };
}
