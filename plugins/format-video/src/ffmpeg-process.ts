import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { abortReason, RenderError, withTimeout } from "@renderkit/core";

/** How much of ffmpeg's stderr is kept for error messages (the end, where the reason is). */
export const STDERR_LIMIT = 4 * 1024;

export interface FfmpegProcessOptions {
  /** Kills ffmpeg (SIGKILL) when it aborts. */
  signal: AbortSignal;
  /** Kills ffmpeg (SIGKILL) when it runs longer than this. */
  timeoutMs: number;
}

/** How the process ended. */
export interface FfmpegExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One ffmpeg run reading its input from stdin. Spawned directly (no shell, no wrapper library),
 * stderr bounded to its last 4 KiB, SIGKILLed on timeout or abort. `dispose()` in a `finally`
 * guarantees that no process outlives the render, whatever path it took.
 */
export class FfmpegProcess {
  /** Resolves once the process is gone and its pipes are closed (never rejects). */
  readonly exited: Promise<FfmpegExit>;
  private readonly child: ChildProcess;
  private readonly gone = new AbortController();
  private stderr = Buffer.alloc(0);
  private failure: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;

  constructor(
    readonly path: string,
    args: readonly string[],
    options: FfmpegProcessOptions,
  ) {
    this.child = spawn(path, args, { stdio: ["pipe", "ignore", "pipe"], windowsHide: true });
    // EPIPE when ffmpeg exits early: the exit status explains it better than the write error.
    this.child.stdin?.on("error", () => undefined);
    this.child.stderr?.on("data", (chunk: Buffer) => {
      const joined = Buffer.concat([this.stderr, chunk]);
      this.stderr = joined.length > STDERR_LIMIT ? joined.subarray(joined.length - STDERR_LIMIT) : joined;
    });
    this.exited = new Promise<FfmpegExit>((resolve) => {
      this.child.once("error", (error: NodeJS.ErrnoException) => {
        // Spawning failed (ENOENT, EACCES): no process, and "close" may never come.
        if (this.child.pid === undefined) {
          this.failure ??= new RenderError(
            "EngineResponseNotOkError",
            `Cannot make videos: starting ${path} failed (${error.code ?? error.message}); install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg) or set FFMPEG_PATH`,
            { cause: error },
          );
          resolve({ code: null, signal: null });
        }
      });
      this.child.once("close", (code, signal) => resolve({ code, signal }));
    }).finally(() => {
      clearTimeout(this.timer);
      options.signal.removeEventListener("abort", this.onAbort);
      this.gone.abort();
    });
    this.timer = setTimeout(() => {
      this.failure ??= new RenderError(
        "RenderTimeoutError",
        `ffmpeg did not finish within ${Math.round(options.timeoutMs / 1000)} s and was killed`,
      );
      this.kill();
    }, options.timeoutMs);
    this.timer.unref();
    this.onAbort = () => {
      this.failure ??= abortReason(options.signal);
      this.kill();
    };
    if (options.signal.aborted) this.onAbort();
    else options.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The process id (undefined when spawning failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the process has exited. */
  get running(): boolean {
    return !this.gone.signal.aborted;
  }

  /** The last bytes ffmpeg wrote to stderr. */
  stderrTail(): string {
    return this.stderr.toString("utf8").trim();
  }

  /** Why the process failed: timeout, abort, spawn error, or its exit status and stderr. */
  error(exit?: FfmpegExit): Error {
    if (this.failure) return this.failure;
    const status = exit?.signal ? `signal ${exit.signal}` : exit ? `exit code ${exit.code}` : "it exited early";
    const tail = this.stderrTail();
    return new RenderError("EngineResponseNotOkError", `ffmpeg failed (${status})${tail ? `: ${tail}` : ""}`, {
      details: { stderr: tail },
    });
  }

  /** Writes to stdin, waiting for `drain` when the pipe is full (ffmpeg slower than the capture). */
  async write(chunk: Uint8Array): Promise<void> {
    const stdin = this.child.stdin;
    if (!this.running || !stdin || stdin.destroyed) throw this.error(await this.exitedSoon());
    if (stdin.write(chunk)) return;
    try {
      await once(stdin, "drain", { signal: this.gone.signal });
    } catch {
      throw this.error(await this.exitedSoon());
    }
  }

  /** Closes stdin and waits for ffmpeg to finish; rejects unless it exited with status 0. */
  async finish(): Promise<void> {
    this.child.stdin?.end();
    const exit = await this.exited;
    if (this.failure || exit.code !== 0) throw this.error(exit);
  }

  /** SIGKILL, if still running. */
  kill(): void {
    if (this.running && this.child.pid !== undefined) this.child.kill("SIGKILL");
  }

  /** Kills the process if it still runs and waits (bounded) until it is gone. Idempotent. */
  async dispose(): Promise<void> {
    this.kill();
    this.child.stdin?.destroy();
    await withTimeout(this.exited, 5_000).catch(() => undefined);
  }

  /** The exit status, once the process is gone or within a moment (stdin errors come before `close`). */
  private exitedSoon(): Promise<FfmpegExit | undefined> {
    return withTimeout(this.exited, 1_000).catch(() => undefined);
  }
}
