import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
/** The built `renderkit` CLI, as operators run it. */
export const CLI = join(require.resolve("@renderkit/server"), "..", "cli.js");

/** A renderkit process started from the CLI with its own config file. */
export interface Node {
  name: string;
  process: ChildProcess;
  /** The last lines it wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL, then waits for the exit (what a crash does). */
  kill(): Promise<void>;
  /** SIGTERM (drain), then waits for the exit. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Writes `config` as JSON to `file`. */
export function writeConfig(file: string, config: Record<string, unknown>): string {
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/**
 * Starts `renderkit <args>` and resolves once `ready()` says so (polled), or rejects with the
 * process's output when it exits first or never gets ready.
 */
async function launch(name: string, args: string[], ready: (output: string) => Promise<boolean>): Promise<Node> {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RENDERKIT_LOG_LEVEL: process.env.RENDERKIT_TEST_LOG_LEVEL ?? "warn" },
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let text = "";
  const collect = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const node: Node = {
    name,
    process: child,
    output: () => text,
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
    async stop() {
      child.kill("SIGTERM");
      return exited(child);
    },
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${text}`);
    if (await ready(text)) return node;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not get ready:\n${text}`);
}

/** `renderkit serve --role <role>` answering `/health` at `url`. */
export function startApi(name: string, configFile: string, url: string, role: "api" | "all" = "api"): Promise<Node> {
  return launch(name, ["serve", "--config", configFile, "--role", role], () =>
    fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false),
  );
}

/** `renderkit worker`, ready once it says it started. */
export function startWorkerNode(name: string, configFile: string): Promise<Node> {
  return launch(name, ["worker", "--config", configFile], async (output) => output.includes("renderkit: worker started"));
}
