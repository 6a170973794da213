import { readdirSync, readFileSync } from "node:fs";

/** A live process, as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  /** Process group id. */
  pgid: number;
  /** Command line, arguments joined by spaces (empty for zombies and kernel threads). */
  cmdline: string;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // the process exited while we looked
  }
}

/** Every process on the machine (Linux /proc). */
export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat) continue;
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") continue;
    const cmdline = (read(`/proc/${entry}/cmdline`) ?? "").split("\0").join(" ").trim();
    out.push({ pid: Number(entry), pgid: Number(fields[2]), cmdline });
  }
  return out;
}

/** The `--user-data-dir` a Chromium process was started with. */
export function userDataDir(pid: number): string | undefined {
  return read(`/proc/${pid}/cmdline`)
    ?.split("\0")
    .find((arg) => arg.startsWith("--user-data-dir="))
    ?.slice("--user-data-dir=".length);
}

/** Polls `check` until it returns an empty list or `ms` pass; returns the last list. */
export async function untilEmpty<T>(check: () => T[], ms = 5_000): Promise<T[]> {
  const end = Date.now() + ms;
  let left = check();
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = check();
  }
  return left;
}
