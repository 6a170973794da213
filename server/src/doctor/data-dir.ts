import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, rm, stat, statfs, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { inspectDataDirLock } from "../state/data-dir-lock.js";
import { type Check, type DoctorCheck, fail, message, ok, warn } from "./types.js";

/** Free space under which renders (videos above all) start failing: warn below 1 GiB. */
export const MIN_FREE_BYTES = 1024 ** 3;

const NAME = "data directory";
const SETTING = "dataDir in the config file, or RENDERKIT_DATA_DIR";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** The directory itself when it exists, else its nearest existing ancestor (which the server would create it in). */
async function existing(path: string): Promise<{ path: string; isDirectory: boolean; exists: boolean }> {
  for (let current = path; ; current = dirname(current)) {
    try {
      const info = await stat(current);
      return { path: current, isDirectory: info.isDirectory(), exists: current === path };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(current) === current) throw error;
    }
  }
}

/** Whether this process can create files in `dir`: a real write, as permission bits lie on some mounts (read-only, ACLs, root squash). */
async function writable(dir: string): Promise<string | undefined> {
  const probe = join(dir, `.renderkit-doctor-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await writeFile(probe, "renderkit doctor\n", { flag: "wx" });
    return undefined;
  } catch (error) {
    return message(error);
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

const owner = () => (typeof process.getuid === "function" ? `uid ${process.getuid()}` : "the user that runs renderkit");

/**
 * `config.dataDir`: a writable directory (or one the server can create), its free space, and in
 * file mode who holds `server.lock`. Read-only but for a probe file it removes at once: it never
 * creates the directory nor takes the lock.
 */
export const dataDirCheck: Check = {
  name: NAME,
  async run({ config }) {
    const dir = config.dataDir;
    const found = await existing(dir);
    if (!found.isDirectory) {
      const what = found.exists ? `${dir} is a file, not a directory` : `${found.path} is a file, so ${dir} cannot be created`;
      return [fail(NAME, what, `point ${SETTING} at a directory, or move ${found.path} away`)];
    }
    let where = dir;
    if (found.exists) {
      const error = await writable(dir);
      if (error)
        return [
          fail(
            NAME,
            `${dir} is not writable: ${error}`,
            `chown or chmod ${dir} so that ${owner()} can write it, or change ${SETTING}`,
          ),
        ];
    } else {
      // Creating it would be a side effect of a diagnosis; the server creates it at start.
      try {
        await access(found.path, constants.W_OK | constants.X_OK);
      } catch (error) {
        return [
          fail(
            NAME,
            `${dir} does not exist and cannot be created in ${found.path}: ${message(error)}`,
            `mkdir -p ${dir} and chown it to ${owner()}, or change ${SETTING}`,
          ),
        ];
      }
      where = found.path;
    }
    const out: DoctorCheck[] = [];
    const space = await statfs(where);
    const free = space.bavail * space.bsize;
    const state = found.exists ? "writable" : `will be created (in ${found.path})`;
    if (free < MIN_FREE_BYTES) {
      out.push(
        warn(
          NAME,
          `${dir} ${state}, only ${gib(free)} free`,
          `free space on the file system of ${where}, or move ${SETTING} to a larger disk`,
        ),
      );
    } else {
      out.push(ok(NAME, `${dir} ${state}, ${gib(free)} free`));
    }
    if (!config.redis && found.exists) out.push(await lockLine(dir));
    return out;
  },
};

/** The lock of file mode: reported, never taken (the server may be running right now). */
async function lockLine(dir: string): Promise<DoctorCheck> {
  let holder: Awaited<ReturnType<typeof inspectDataDirLock>>;
  try {
    holder = await inspectDataDirLock(dir);
  } catch (error) {
    return warn(
      NAME,
      `cannot read the lock file in ${dir}: ${message(error)}`,
      `chown or chmod ${dir} so that ${owner()} can read it`,
    );
  }
  if (!holder) return ok(NAME, "server.lock: free (no renderkit process uses this directory)");
  if (holder.pid === undefined) return ok(NAME, `server.lock: stale (unreadable; the next server start takes it over)`);
  const who = `pid ${holder.pid} on ${holder.host ?? "an unknown host"}`;
  if (!holder.live) return ok(NAME, `server.lock: stale, left by ${who} (the next server start takes it over)`);
  const elsewhere =
    holder.host !== undefined && holder.host !== hostname() ? " (another machine: its liveness cannot be checked)" : "";
  // A running server is the normal case when the doctor runs beside it; a second server would refuse to start.
  return ok(NAME, `server.lock: held by the live ${who}${elsewhere}; a second process on this dataDir would refuse to start`);
}
