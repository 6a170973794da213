import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RenderError } from "../errors.js";

/** Flags measured to work headless as root in containers (environment.md §3). */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--disable-extensions",
  "--disable-default-apps",
  "--disable-breakpad",
  "--disable-crash-reporter",
  "--hide-scrollbars",
  "--mute-audio",
  "--password-store=basic",
  "--use-mock-keychain",
  "--force-color-profile=srgb",
  // WebRTC could reach addresses without the proxy: only proxied UDP, which there is none of.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-features=Translate,MediaRouter,OptimizationHints,OptimizationGuideModelDownloading,OnDeviceModelPerformanceParams,AutofillServerCommunication,InterestFeedContentSuggestions,DialMediaRouteProvider",
];

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
}

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

  /** Launches Chromium in its own process group with a fresh profile and waits for DevTools. */
  static async launch(options: LaunchOptions): Promise<ChromiumProcess> {
    const userDataDir = mkdtempSync(join(tmpdir(), "renderkit-chromium-"));
    const args = [
      ...CHROMIUM_FLAGS,
      ...(options.args ?? []),
      "--remote-debugging-port=0",
      `--user-data-dir=${userDataDir}`,
      "about:blank",
    ];
    // Chromium leaves temp directories behind when killed; keep them inside the profile we remove.
    const tmp = join(userDataDir, "tmp");
    mkdirSync(tmp);
    const env = { ...process.env, TMPDIR: tmp };
    const child = spawn(options.executablePath, args, { detached: true, stdio: ["ignore", "ignore", "pipe"], env });
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
          reject(new Error(`exited during launch (${signal ?? code})`));
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
      const proc = new ChromiumProcess(child, watchdog, wsEndpoint, userDataDir, exited);
      live.add(proc);
      installExitHook();
      return proc;
    } catch (cause) {
      cleanup();
      const detail = stderr
        .split("\n")
        .filter((l) => l && !/dbus|unexpected operator/i.test(l))
        .slice(-3)
        .join(" | ");
      throw new RenderError(
        "EngineResponseNotOkError",
        `Chromium (${options.executablePath}) failed to start: ${cause instanceof Error ? cause.message : String(cause)}${detail ? ` — ${detail}` : ""}`,
        { cause, retryable: true },
      );
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
