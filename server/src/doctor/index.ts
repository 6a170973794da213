import type { ServerConfig } from "../config/types.js";
import { chromiumCheck, ffmpegCheck, pdftocairoCheck } from "./binaries.js";
import { configCheck } from "./config-summary.js";
import { dataDirCheck } from "./data-dir.js";
import { fontsCheck } from "./fonts.js";
import { redisCheck } from "./redis.js";
import { runCheck } from "./run-check.js";
import { projectBucketChecks, s3StorageCheck } from "./s3.js";
import type { Check, DoctorCheck, DoctorOptions } from "./types.js";

export { doctorExitCode, formatDoctor } from "./format.js";
export type { DoctorCheck, DoctorOptions, DoctorRole } from "./types.js";

/** Longest one check may take by default. */
export const DOCTOR_TIMEOUT_MS = 10_000;

/** Passwords and secret keys of the configuration: scrubbed from every line should a library echo one. */
function secrets(config: ServerConfig): string[] {
  const out: string[] = [];
  if (config.redis) {
    try {
      const { password, username } = new URL(config.redis.url);
      if (password) out.push(password, decodeURIComponent(password));
      // redis://secret@host: some clients read a lone user part as the password.
      if (username && !password) out.push(username, decodeURIComponent(username));
    } catch {
      // An address that does not parse has been refused by the config loader already.
    }
  }
  for (const s3 of [config.storage.kind === "s3" ? config.storage : undefined, ...config.projects.map((p) => p.s3)]) {
    if (s3?.secretAccessKey) out.push(s3.secretAccessKey);
  }
  // A short secret would turn ordinary words into "***"; those are never printed by the checks anyway.
  return [...new Set(out)].filter((secret) => secret.length >= 4);
}

function scrub(check: DoctorCheck, hidden: string[]): DoctorCheck {
  const clean = (text: string) => hidden.reduce((out, secret) => out.split(secret).join("***"), text);
  return { ...check, detail: clean(check.detail), ...(check.fix === undefined ? {} : { fix: clean(check.fix) }) };
}

/**
 * Checks that this machine and configuration can do their part (`renderkit doctor`): Chromium,
 * ffmpeg, pdftocairo and fonts (not on an API node), the data directory, Redis and S3 when
 * configured, and the configuration's combinations. Checks run at once, each bounded by
 * `timeoutMs`; none throws: a crash or timeout is a `fail` line. Read-only apart from a probe
 * file in the data directory and a probe object in each bucket, both removed.
 */
export async function runDoctor(config: ServerConfig, options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const base = {
    config,
    role: options.role ?? "all",
    timeoutMs: options.timeoutMs ?? DOCTOR_TIMEOUT_MS,
    env: options.env ?? process.env,
  };
  const checks: Check[] = [
    configCheck,
    chromiumCheck,
    ffmpegCheck,
    pdftocairoCheck,
    fontsCheck,
    dataDirCheck,
    redisCheck,
    s3StorageCheck,
    ...projectBucketChecks(config),
  ];
  const results = await Promise.all(checks.map((check) => runCheck(check, base)));
  const hidden = secrets(config);
  return results.flat().map((check) => scrub(check, hidden));
}
