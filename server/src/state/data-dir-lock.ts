import { readFileSync } from "node:fs";
import { mkdir, open, readFile, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

/** The lock file of a data directory in file mode. */
export const LOCK_FILE = "server.lock";

interface Holder {
  pid: number;
  host: string;
  /** Linux boot id: a lock from before a reboot is stale whatever its pid. */
  boot?: string;
  /** Start time of the process (clock ticks after boot, /proc): tells a reused pid apart. */
  started?: string;
}

const readProc = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
};

/** Field 22 of /proc/<pid>/stat: when the process started. */
function startTime(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

function me(): Holder {
  return {
    pid: process.pid,
    host: hostname(),
    boot: readProc("/proc/sys/kernel/random/boot_id"),
    started: startTime(process.pid),
  };
}

/** How often the holder touches its lock file, and how old a touch may be on another host. */
const HEARTBEAT_MS = 15_000;
const HEARTBEAT_STALE_MS = 4 * HEARTBEAT_MS;

/**
 * Whether the process that wrote `holder` still runs. On this machine: its pid, boot and start
 * time say so. On another host (a shared volume, a container recreated with a new hostname):
 * its heartbeat, the lock file's modification time, no older than a minute.
 */
function alive(holder: Holder, modifiedMs: number): boolean {
  const self = me();
  if (holder.host !== self.host) return Date.now() - modifiedMs < HEARTBEAT_STALE_MS;
  if (holder.boot && self.boot && holder.boot !== self.boot) return false;
  if (holder.pid === process.pid) return false; // a previous life of this process (a container's pid 1)
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const started = startTime(holder.pid);
  return !(holder.started && started && holder.started !== started);
}

/**
 * Lock files this process holds now. Its own pid in a lock file is a previous life (a
 * container's pid 1 restarted) only when it is not listed here: a second `startServer` in the
 * same process must be refused like a second process.
 */
const held = new Set<string>();

/** The lock file's modification time (its holder's last heartbeat); 0 when it is gone. */
function modified(file: string): Promise<number> {
  return stat(file).then(
    (info) => info.mtimeMs,
    () => 0,
  );
}

/** Thrown when another live process holds the data directory. */
export class DataDirLocked extends Error {}

/**
 * Takes `<dataDir>/server.lock` for this process: in file mode the queue, records and
 * webhooks of a data directory belong to one process, and a second one would run every job
 * twice. A lock left by a process that died (kill -9, a reboot, a reused pid) is taken over;
 * one held by a live process refuses with `DataDirLocked`. Resolves with the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const self = me();
  for (let tries = 0; tries < 3; tries++) {
    try {
      const handle = await open(file, "wx", 0o600);
      await handle.writeFile(JSON.stringify(self));
      await handle.close();
      held.add(resolve(file));
      const heartbeat = setInterval(() => {
        const now = new Date();
        void utimes(file, now, now).catch(() => undefined);
      }, HEARTBEAT_MS);
      heartbeat.unref();
      return async () => {
        clearInterval(heartbeat);
        const text = await readFile(file, "utf8").catch(() => "");
        if (text === JSON.stringify(self)) await rm(file, { force: true });
        held.delete(resolve(file));
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let holder: Holder | undefined;
    try {
      holder = JSON.parse(await readFile(file, "utf8")) as Holder;
    } catch {
      holder = undefined; // half-written by a process that died while writing: stale
    }
    const mine = held.has(resolve(file)) && holder?.pid === self.pid && holder.host === self.host;
    if (holder && typeof holder.pid === "number" && (mine || alive(holder, await modified(file)))) {
      const who = mine ? "This process already runs a renderkit server" : "Another renderkit process";
      throw new DataDirLocked(
        `${who} (pid ${holder.pid} on ${holder.host}) is using the data directory ${dataDir}: ` +
          "in file mode one process owns a data directory, or every render would run twice. " +
          `Stop that process, give this one its own dataDir (--config, RENDERKIT_DATA_DIR), or configure redis to run several processes. Lock file: ${file}`,
      );
    }
    await rm(file, { force: true });
  }
  throw new DataDirLocked(`Could not take the lock file ${file}; remove it if no renderkit process runs`);
}

/** What `inspectDataDirLock` found in a lock file. */
export interface LockHolder {
  /** Path of the lock file. */
  file: string;
  /** Absent when the file is unreadable JSON (a process died while writing it). */
  pid?: number;
  host?: string;
  /** True when the holder still runs (on another host: when its heartbeat is recent). */
  live: boolean;
}

/**
 * Reads `<dataDir>/server.lock` without taking, changing or removing it (for diagnostics such
 * as `renderkit doctor`). Undefined when there is no lock file. Liveness is `lockDataDir`'s,
 * except that this process's own current lock counts as live: `lockDataDir` treats its own pid
 * as a previous life because it is about to take the lock over, an inspector is not.
 */
export async function inspectDataDirLock(dataDir: string): Promise<LockHolder | undefined> {
  const file = join(dataDir, LOCK_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let holder: Holder | undefined;
  try {
    holder = JSON.parse(text) as Holder;
  } catch {
    holder = undefined;
  }
  if (!holder || typeof holder.pid !== "number") return { file, live: false };
  const self = me();
  const mine = holder.pid === self.pid && holder.host === self.host && holder.started === self.started;
  return { file, pid: holder.pid, host: holder.host, live: mine || alive(holder, await modified(file)) };
}
