import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** How a command ended. */
export interface CommandResult {
  /** Exit code; null when killed. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Thrown when the executable cannot be started at all (`ENOENT`: not installed, `EACCES`...). */
export class NotStarted extends Error {
  constructor(
    readonly command: string,
    readonly code: string,
  ) {
    super(`${command} cannot be started (${code})`);
  }
}

/** The first non-empty line of a text, at most 160 characters: enough to name a version. */
export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.trim().slice(0, 160);
}

/**
 * Runs `command args` and collects its output, killed with SIGKILL after `timeoutMs` or when
 * `signal` aborts: a tool that hangs (a Chromium waiting on a display, a wedged NFS mount) must
 * not hang the doctor. Output beyond 1 MiB is an error rather than unbounded memory.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 1024 * 1024,
        signal: options.signal,
        env: options.env,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const errno = (error as NodeJS.ErrnoException).code;
        if (errno === "ENOENT" || errno === "EACCES" || errno === "ENOEXEC") return reject(new NotStarted(command, errno));
        if (typeof errno === "number") return resolve({ code: errno, stdout, stderr });
        if (error.killed || (error as { signal?: string }).signal) {
          return reject(new Error(`${command} ${args.join(" ")} did not finish within ${options.timeoutMs} ms (killed)`));
        }
        reject(error);
      },
    );
  });
}

/** Where `name` resolves on `PATH` (for the report); the name itself when it holds a slash or is not found. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string {
  if (name.includes("/")) return name;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return name;
}
