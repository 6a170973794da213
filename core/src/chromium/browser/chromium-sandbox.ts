import { readFileSync } from "node:fs";
import { type Logger, RenderError } from "../../index.js";

/**
 * `RENDERKIT_CHROMIUM_SANDBOX`: `auto` (default) runs Chromium with its sandbox wherever it can
 * work and says why not where it cannot; `on` refuses to start Chromium without it; `off` always
 * passes `--no-sandbox`.
 */
export type SandboxMode = "auto" | "on" | "off";

/** Whether Chromium runs with its own sandbox, and why: the start-up log line. */
export interface SandboxDecision {
  enabled: boolean;
  /** Why, in a few words ("running as root"). */
  reason: string;
  /** What an operator does to turn it on, when it is off. */
  fix?: string;
}

/** What the decision rests on; read by `readSandboxFacts`, given by hand in tests. */
export interface SandboxFacts {
  /** The uid Chromium will run as. */
  uid: number;
  mode: SandboxMode;
  /** The engine's extra args contain `--no-sandbox`. */
  argsDisable: boolean;
  /** A setuid-root `chrome-sandbox` helper Chromium can use instead of user namespaces (Google's builds). */
  setuidHelper: boolean;
  /** `/proc/sys/kernel/unprivileged_userns_clone` (Debian and Ubuntu kernels); undefined when absent. */
  unprivilegedUsernsClone?: string;
  /** `/proc/sys/user/max_user_namespaces`; undefined when absent. */
  maxUserNamespaces?: string;
}

/** Where the docs explain every case. */
const DOCS = "see docs/security.md#chromium-sandbox";
const AS_USER =
  "run the server as an unprivileged user (the container image does), or set RENDERKIT_CHROMIUM_USER to a dedicated user Chromium runs as";

/** The mode from `RENDERKIT_CHROMIUM_SANDBOX`; anything else than on/off/auto is refused. */
export function sandboxMode(value = process.env.RENDERKIT_CHROMIUM_SANDBOX): SandboxMode {
  const mode = (value ?? "").trim().toLowerCase() || "auto";
  if (mode === "auto" || mode === "on" || mode === "off") return mode;
  throw new RenderError(
    "EngineResponseNotOkError",
    `RENDERKIT_CHROMIUM_SANDBOX must be auto, on or off (got ${JSON.stringify(value)})`,
  );
}

/**
 * Decides, before launching, whether Chromium can run with its sandbox. Chromium refuses its
 * sandbox as root, and without a setuid helper it needs unprivileged user namespaces. A launch
 * that still fails for lack of them (a container's seccomp profile, AppArmor) is caught by
 * `sandboxFailure` and retried without it in `auto` mode.
 */
export function decideSandbox(facts: SandboxFacts): SandboxDecision {
  if (facts.mode === "off") {
    return { enabled: false, reason: "RENDERKIT_CHROMIUM_SANDBOX=off", fix: "unset RENDERKIT_CHROMIUM_SANDBOX" };
  }
  if (facts.argsDisable) {
    return { enabled: false, reason: "--no-sandbox is among the engine's args", fix: "remove --no-sandbox from the args" };
  }
  if (facts.uid === 0) {
    return { enabled: false, reason: "Chromium runs as root, where it refuses its sandbox", fix: AS_USER };
  }
  if (facts.setuidHelper) return { enabled: true, reason: "setuid sandbox helper" };
  if (facts.unprivilegedUsernsClone?.trim() === "0") {
    return {
      enabled: false,
      reason: "unprivileged user namespaces are off (kernel.unprivileged_userns_clone=0)",
      fix: "sysctl -w kernel.unprivileged_userns_clone=1",
    };
  }
  if (facts.maxUserNamespaces?.trim() === "0") {
    return {
      enabled: false,
      reason: "user namespaces are off (user.max_user_namespaces=0)",
      fix: "sysctl -w user.max_user_namespaces=10000",
    };
  }
  return { enabled: true, reason: "unprivileged user namespaces" };
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The facts of this machine for a Chromium that runs as `uid`. */
export function readSandboxFacts(uid: number, args: readonly string[], setuidHelper: boolean): SandboxFacts {
  return {
    uid,
    mode: sandboxMode(),
    argsDisable: args.includes("--no-sandbox"),
    setuidHelper,
    unprivilegedUsernsClone: readProc("/proc/sys/kernel/unprivileged_userns_clone"),
    maxUserNamespaces: readProc("/proc/sys/user/max_user_namespaces"),
  };
}

/**
 * The reason when Chromium's stderr says it could not build its sandbox (a seccomp profile or
 * AppArmor that blocks user namespaces: `No usable sandbox!`, `Failed to move to new namespace`);
 * undefined for any other failure.
 */
export function sandboxFailure(stderr: string): SandboxDecision | undefined {
  const line = stderr
    .split("\n")
    .find((l) =>
      /no usable sandbox|failed to move to new namespace|zygote_host_impl_linux|sandbox.*(operation not permitted|fatal)/i.test(
        l,
      ),
    );
  if (!line) return undefined;
  return {
    enabled: false,
    reason: `Chromium could not create its sandbox: user namespaces are blocked (${line.trim().slice(0, 160)})`,
    fix: `allow user namespaces: in Docker, --security-opt seccomp=<a profile that allows them> (${DOCS}); on Ubuntu 23.10+, an AppArmor profile for Chromium`,
  };
}

/** The log line: `chromium sandbox: on (…)` or `chromium sandbox: off (…); to turn it on: …`. */
export function sandboxLine(decision: SandboxDecision): string {
  const state = `chromium sandbox: ${decision.enabled ? "on" : "off"} (${decision.reason})`;
  return decision.enabled || !decision.fix ? state : `${state}; to turn it on: ${decision.fix} (${DOCS})`;
}

/** The last line each logger was told, so relaunches (crash, recycling) do not repeat it. */
const told = new WeakMap<Logger, string>();

/** Logs the start-up line once per logger and outcome: `info` when on, `warn` when off. */
export function logSandbox(logger: Logger | undefined, decision: SandboxDecision): void {
  const line = sandboxLine(decision);
  if (!logger || told.get(logger) === line) return;
  told.set(logger, line);
  if (decision.enabled) logger.info(line);
  else logger.warn(line);
}

/** `RENDERKIT_CHROMIUM_SANDBOX=on` and the sandbox cannot work: Chromium is not started. */
export function sandboxRequired(decision: SandboxDecision): RenderError {
  return new RenderError(
    "EngineResponseNotOkError",
    `RENDERKIT_CHROMIUM_SANDBOX=on, so Chromium was not started without its sandbox: ${sandboxLine(decision)}`,
  );
}

/** A user Chromium runs as (`RENDERKIT_CHROMIUM_USER`). */
export interface ChromiumUser {
  uid: number;
  gid: number;
  /** Its name when it has one in /etc/passwd, else the uid. */
  name: string;
}

/**
 * Resolves `RENDERKIT_CHROMIUM_USER`: a user name from /etc/passwd, `uid` or `uid:gid`. Only a
 * root server can start a process as another user; a server running as that user already is fine.
 */
export function chromiumUser(spec = process.env.RENDERKIT_CHROMIUM_USER, passwd = "/etc/passwd"): ChromiumUser | undefined {
  const value = spec?.trim();
  if (!value) return undefined;
  const numeric = value.match(/^(\d+)(?::(\d+))?$/);
  let user: ChromiumUser | undefined;
  if (numeric) {
    const uid = Number(numeric[1]);
    user = { uid, gid: Number(numeric[2] ?? numeric[1]), name: String(uid) };
  } else {
    const entry = (readProc(passwd) ?? "")
      .split("\n")
      .map((l) => l.split(":"))
      .find((f) => f[0] === value && f.length >= 4);
    if (entry) user = { uid: Number(entry[2]), gid: Number(entry[3]), name: value };
  }
  if (!user || !Number.isInteger(user.uid) || !Number.isInteger(user.gid)) {
    throw new RenderError(
      "EngineResponseNotOkError",
      `RENDERKIT_CHROMIUM_USER=${value}: no such user (create it: useradd --system renderkit-chromium)`,
    );
  }
  const own = process.getuid?.();
  if (own !== undefined && own !== 0 && own !== user.uid) {
    throw new RenderError(
      "EngineResponseNotOkError",
      `RENDERKIT_CHROMIUM_USER=${value}: only a server running as root can start Chromium as another user (this one is uid ${own})`,
    );
  }
  return user;
}
