import type { ServerConfig } from "../config/types.js";

/** One line of the doctor's report. */
export interface DoctorCheck {
  /** What was checked (`chromium`, `redis`, `s3 project alpha`...). */
  name: string;
  /** `fail`: this process cannot work as configured; `warn`: it works, some renders or setups will not. */
  status: "ok" | "warn" | "fail";
  /** What was found, on one line; never a password or secret key. */
  detail: string;
  /** What to do about a `warn` or `fail`, as a command or a setting to change. */
  fix?: string;
}

/** Which process the checks are for: an API node needs no browser, ffmpeg or fonts. */
export type DoctorRole = "all" | "api" | "worker";

/** Options of `runDoctor`. */
export interface DoctorOptions {
  /** Default `all`. */
  role?: DoctorRole;
  /** Longest any one check may take, in ms; it then fails naming the timeout. Default 10 000. */
  timeoutMs?: number;
  /**
   * Environment that locates the tools (`RENDERKIT_CHROMIUM`, `FFMPEG_PATH`, `PDFTOCAIRO_PATH`,
   * `PATH`). Default `process.env`. `findChromium` still falls back to `process.env.RENDERKIT_CHROMIUM`
   * when this one has none.
   */
  env?: NodeJS.ProcessEnv;
}

/** What every check gets: the configuration, its options with defaults, and a signal aborted at its timeout. */
export interface CheckContext {
  config: ServerConfig;
  role: DoctorRole;
  /** Time for each step of the check (a command, a connection), a little under the check's own limit. */
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Aborted when the check's time is up: close whatever it opened so that it settles. */
  signal: AbortSignal;
}

/** A check: one or more report lines. May throw: the runner turns that into a `fail`. */
export interface Check {
  name: string;
  run(context: CheckContext): Promise<DoctorCheck[]>;
  /** Fix line when the whole check runs out of time; default: find out what hangs. */
  timeoutFix?: string;
}

/** A passing check. */
export const ok = (name: string, detail: string): DoctorCheck => ({ name, status: "ok", detail });
/** A warning with what to do. */
export const warn = (name: string, detail: string, fix: string): DoctorCheck => ({ name, status: "warn", detail, fix });
/** A failure with what to do. */
export const fail = (name: string, detail: string, fix: string): DoctorCheck => ({ name, status: "fail", detail, fix });

/** The message of anything thrown, on one line. */
export function message(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.replace(/\s+/g, " ").trim();
}
