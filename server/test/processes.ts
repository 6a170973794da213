import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConsoleLogger } from "@renderkit/core";
import { afterAll, beforeAll, expect } from "vitest";
import { type Cleanup, useCleanup } from "../../test/helpers/cleanup.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { type RunningServer, type StartOptions, startServer } from "../dist/serve.js";
import { PROJECT_A } from "./helpers.js";

/**
 * Servers as an operator runs them: the built CLI as a child process, `startServer` in this
 * process, each with its own data directory; everything a test starts is stopped after it.
 */

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const silent = new ConsoleLogger("silent");
export const PROJECT = { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } };

/** The settings of a one-project loopback server in file mode in `dataDir`. */
export function settings(dataDir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    port: 0,
    host: "127.0.0.1",
    dataDir,
    allowPrivateNetworks: ["127.0.0.1"],
    drainSeconds: 5,
    projects: [PROJECT],
    ...extra,
  };
}

/** The config `loadConfig` makes of `values` (and no environment). */
export const configOf = (values: Record<string, unknown>): Promise<ServerConfig> =>
  loadConfig({ env: {}, overrides: values as Partial<ServerConfig> });

/** Environment of a CLI child: none of the test runner's renderkit settings leak in. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("RENDERKIT_") && name !== "RENDERKIT_CHROMIUM") delete env[name];
  for (const name of ["PORT", "HOST"]) delete env[name];
  return { ...env, RENDERKIT_LOG_LEVEL: "warn" };
}

/** Runs the CLI to its end. */
export function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv(), cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

export const exited = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));

/** The error `promise` rejects with (it must reject, with an Error). */
export async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** Directories, servers and processes of one test file. */
export interface Processes {
  /** Steps run after each test, newest first. */
  cleanup: Cleanup;
  /** A fresh directory of this test file (created). */
  fresh(name: string): Promise<string>;
  /** `startServer` with a silent logger, closed after the test. */
  server(config: ServerConfig, options?: StartOptions): Promise<RunningServer>;
  /** `renderkit serve --config <file>` (from `cwd` if given), ready once `/health` answers at `url`; stopped after the test. */
  serveProcess(file: string, url: string, cwd?: string): Promise<ChildProcess>;
}

/**
 * Registers the calling test file's hooks: a temporary directory (`prefix`) for the file, removed
 * after it; a cleanup stack run after each test.
 */
export function useProcesses(prefix: string): Processes {
  let dir: string;
  let n = 0;
  const cleanup = useCleanup();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  return {
    cleanup,
    async fresh(name) {
      const path = join(dir, `${name}-${n++}`);
      await mkdir(path, { recursive: true });
      return path;
    },
    async server(config, options = {}) {
      const running = await startServer(config, { logger: silent, ...options });
      cleanup.push(() => running.close());
      return running;
    },
    async serveProcess(file, url, cwd) {
      const child = spawn(process.execPath, [CLI, "serve", "--config", file], {
        env: childEnv(),
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const collect = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-20_000);
      };
      child.stdout?.on("data", collect);
      child.stderr?.on("data", collect);
      cleanup.push(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited(child);
        clearTimeout(timer);
      });
      for (;;) {
        if (child.exitCode !== null) throw new Error(`renderkit serve exited with ${child.exitCode}:\n${output}`);
        const up = await fetch(`${url}/health`)
          .then((r) => r.ok)
          .catch(() => false);
        if (up) return child;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
