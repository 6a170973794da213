import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Logger, RenderError } from "../../index.js";
import { CHROMIUM_FLAGS } from "./chromium-flags.js";
import {
  type ChromiumUser,
  chromiumUser,
  decideSandbox,
  logSandbox,
  readSandboxFacts,
  type SandboxDecision,
  sandboxFailure,
  sandboxRequired,
} from "./chromium-sandbox.js";
import { hasSetuidSandbox } from "./find-chromium.js";
import { profileBase } from "./profile-dir.js";

/**
 * Kills the browser's process group and removes its profile if this Node process dies without
 * cleaning up (SIGKILL, OOM): a killed Node process otherwise leaves Chromium running.
 */
const WATCHDOG = `while kill -0 "$1" 2>/dev/null && kill -0 -"$2" 2>/dev/null; do sleep 1; done
kill -0 "$1" 2>/dev/null || { kill -9 -"$2" 2>/dev/null; rm -rf "$3"; }`;

const live = new Set<ChromiumProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous last resort on normal exit paths (process.exit, end of event loop, uncaught error).
  process.once("exit", () => {
    for (const proc of live) proc.killSync();
  });
}

export interface LaunchOptions {
  executablePath: string;
  /** Extra flags after ours. */
  args?: readonly string[];
  timeoutMs?: number;
  /** The user Chromium runs as (a root server only). Default: `RENDERKIT_CHROMIUM_USER`, else this process's. */
  user?: ChromiumUser;
  /** Told once per distinct outcome: `chromium sandbox: on|off (reason)`, a warning when off. */
  logger?: Logger;
}

/** A launch that failed, with what Chromium printed (to tell a missing sandbox from other failures). */
class LaunchFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly stderr: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * Launches where the sandbox was expected to work and Chromium could not build it (per executable
 * and uid): later launches go straight to the fallback instead of failing first each time.
 */
const sandboxBlocked = new Map<string, SandboxDecision>();

/** A Chromium this process launched and owns: its process group and its profile directory. */
export class ChromiumProcess {
  private exitedFlag = false;
  /** Resolves when the browser process exits. */
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly watchdog: ChildProcess | undefined,
    /** DevTools WebSocket address. */
    readonly wsEndpoint: string,
    /** Profile directory, removed on kill. */
    readonly userDataDir: string,
    exited: Promise<void>,
    /** Whether this browser runs with Chromium's sandbox, and why. */
    readonly sandbox: SandboxDecision,
    /** The user it runs as, when not this process's. */
    readonly user: ChromiumUser | undefined,
  ) {
    this.exited = exited.then(() => {
      this.exitedFlag = true;
    });
  }

  /** Browser process id (also its process group id). */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return !this.exitedFlag;
  }

  /**
   * Launches Chromium in its own process group with a fresh profile and waits for DevTools. With
   * its sandbox wherever it can work (`decideSandbox`); in `auto` mode a launch whose sandbox
   * fails for lack of user namespaces is retried once without it.
   */
  static async launch(options: LaunchOptions): Promise<ChromiumProcess> {
    const user = options.user ?? chromiumUser();
    const uid = user?.uid ?? process.getuid?.() ?? 0;
    const facts = readSandboxFacts(uid, options.args ?? [], hasSetuidSandbox(options.executablePath));
    const key = `${options.executablePath}\0${uid}`;
    let sandbox = decideSandbox(facts);
    if (sandbox.enabled && facts.mode === "auto") sandbox = sandboxBlocked.get(key) ?? sandbox;
    if (!sandbox.enabled && facts.mode === "on") throw sandboxRequired(sandbox);
    try {
      const proc = await ChromiumProcess.start(options, user, sandbox);
      logSandbox(options.logger, sandbox);
      return proc;
    } catch (error) {
      const failure = error instanceof LaunchFailure && sandbox.enabled ? sandboxFailure(error.stderr) : undefined;
      if (!failure) throw launchError(options.executablePath, error);
      if (facts.mode === "on") throw sandboxRequired(failure);
      sandboxBlocked.set(key, failure);
      try {
        const proc = await ChromiumProcess.start(options, user, failure);
        logSandbox(options.logger, failure);
        return proc;
      } catch (again) {
        throw launchError(options.executablePath, again);
      }
    }
  }

  private static async start(
    options: LaunchOptions,
    user: ChromiumUser | undefined,
    sandbox: SandboxDecision,
  ): Promise<ChromiumProcess> {
    const userDataDir = mkdtempSync(join(profileBase(), "renderkit-chromium-"));
    const args = [
      ...CHROMIUM_FLAGS,
      ...(sandbox.enabled ? [] : ["--no-sandbox"]),
      ...(options.args ?? []),
      "--remote-debugging-port=0",
      `--user-data-dir=${userDataDir}`,
      // No first window: every render opens its own page. An idle startup tab is not free: with
      // it, each render cost ~13 ms more browser CPU (docs/performance.md, the breakdown).
      "--no-startup-window",
    ];
    // Chromium leaves temp directories behind when killed; keep them inside the profile we remove.
    const tmp = join(userDataDir, "tmp");
    mkdirSync(tmp);
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
    if (user) {
      // The profile is the only place the other user writes; its home is there too (NSS, fontconfig).
      try {
        chownSync(userDataDir, user.uid, user.gid);
        chownSync(tmp, user.uid, user.gid);
      } catch (cause) {
        rmSync(userDataDir, { recursive: true, force: true });
        throw new LaunchFailure(cause, "");
      }
      env.HOME = userDataDir;
    }
    const child = spawn(options.executablePath, args, {
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      env,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // The watchdog starts at once: a Node process killed while Chromium is still starting must
    // not leave it behind either.
    const watchdog = child.pid
      ? spawn("/bin/sh", ["-c", WATCHDOG, "renderkit-watchdog", String(process.pid), String(child.pid), userDataDir], {
          detached: true,
          stdio: "ignore",
        })
      : undefined;
    watchdog?.unref();
    const cleanup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
      try {
        if (watchdog?.pid) process.kill(-watchdog.pid, "SIGKILL");
      } catch {}
      rmSync(userDataDir, { recursive: true, force: true });
    };
    let stderr = "";
    try {
      const wsEndpoint = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no DevTools address after ${options.timeoutMs ?? 30_000} ms`)),
          options.timeoutMs ?? 30_000,
        );
        child.once("error", (e) => {
          clearTimeout(timer);
          reject(e);
        });
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          const fail = () => reject(new Error(`exited during launch (${signal ?? code})`));
          // What it printed before exiting may still be in the pipe (the sandbox check reads it).
          const pipe = child.stderr;
          if (!pipe || pipe.closed) return fail();
          const bound = setTimeout(fail, 1_000);
          pipe.once("close", () => {
            clearTimeout(bound);
            fail();
          });
        });
        child.stderr?.on("data", (chunk: Buffer) => {
          if (stderr.length < 8192) stderr += chunk.toString();
          const match = stderr.match(/DevTools listening on (ws:\/\/\S+)/);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      // Keep draining stderr (bounded) so the pipe never blocks the browser.
      child.stderr?.removeAllListeners("data");
      child.stderr?.resume();
      const proc = new ChromiumProcess(child, watchdog, wsEndpoint, userDataDir, exited, sandbox, user);
      live.add(proc);
      installExitHook();
      return proc;
    } catch (cause) {
      cleanup();
      throw new LaunchFailure(cause, stderr);
    }
  }

  /** Kills the whole process group, waits for the exit (bounded) and removes the profile. Idempotent. */
  async kill(): Promise<void> {
    live.delete(this);
    if (this.alive) {
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {}
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
    }
    this.stopWatchdog();
    rmSync(this.userDataDir, { recursive: true, force: true });
  }

  /** Synchronous kill for `process.on('exit')`. */
  killSync(): void {
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {}
    this.stopWatchdog();
    rmSync(this.userDataDir, { recursive: true, force: true });
  }

  private stopWatchdog(): void {
    try {
      if (this.watchdog?.pid) process.kill(-this.watchdog.pid, "SIGKILL");
    } catch {}
  }
}

function launchError(executablePath: string, error: unknown): RenderError {
  if (error instanceof RenderError) return error;
  const cause = error instanceof LaunchFailure ? error.cause : error;
  const detail = (error instanceof LaunchFailure ? error.stderr : "")
    .split("\n")
    .filter((l) => l && !/dbus|unexpected operator/i.test(l))
    .slice(-3)
    .join(" | ");
  return new RenderError(
    "EngineResponseNotOkError",
    `Chromium (${executablePath}) failed to start: ${cause instanceof Error ? cause.message : String(cause)}${detail ? ` — ${detail}` : ""}`,
    { cause, retryable: true },
  );
}
