import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const swept = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is not ours.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes `<tmp>/<prefix><pid>-*` directories whose process is gone: what a killed process
 * (SIGKILL, OOM) could not clean up. A reused pid only keeps a directory a little longer.
 */
export async function sweepStaleTempDirs(prefix: string): Promise<number> {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+)-`);
  let removed = 0;
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    removed++;
  }
  return removed;
}

/**
 * A fresh private directory `<tmp>/<prefix><pid>-XXXXXX` for one piece of work; the caller removes
 * it in `finally`. The first call for a prefix in a process also sweeps what dead processes left.
 */
export async function ownedTempDir(prefix: string): Promise<string> {
  if (!swept.has(prefix)) {
    swept.add(prefix);
    await sweepStaleTempDirs(prefix);
  }
  return mkdtemp(join(tmpdir(), `${prefix}${process.pid}-`));
}
