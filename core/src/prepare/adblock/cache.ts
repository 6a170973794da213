import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TEMP_SUFFIX, writeAtomic } from "../../util/write-atomic.js";

/**
 * The cache under `cacheDir`: one file per downloaded list (`list-<hash>.txt`: a comment line
 * with the fetch time, then the list as downloaded) and the latest serialised engine
 * (`engine-<fingerprint>.bin`). Every write is atomic (temp file, fsync, rename), so a crash
 * leaves the old copy or the new one, never half a file.
 */

/** A downloaded list as cached. */
export interface CachedList {
  text: string;
  /** When it was downloaded (ms since the epoch). */
  fetchedAt: number;
}

/** First line of a cached list; `!` starts a comment in filter lists, so the file stays a valid list. */
const HEADER = "! renderkit-adblock-cache fetched-at=";
const HEADER_LINE = new RegExp(`^${HEADER.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+)\\n`);
/** Temp files older than this are leftovers of a crash. */
const STALE_TEMP_MS = 3_600_000;

/** The cached copy of a list, or undefined when there is none (or it is unreadable). */
export async function readCachedList(file: string): Promise<CachedList | undefined> {
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  const header = raw.match(HEADER_LINE);
  if (!header?.[1]) return undefined;
  return { fetchedAt: Number(header[1]), text: raw.slice(header[0].length) };
}

export async function writeCachedList(file: string, list: CachedList): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeAtomic(file, `${HEADER}${Math.round(list.fetchedAt)}\n${list.text}`);
}

const engineFile = (dir: string, fingerprint: string) => join(dir, `engine-${fingerprint}.bin`);

/** The serialised engine built from lists with this fingerprint, if cached. */
export async function readCachedEngine(dir: string, fingerprint: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(engineFile(dir, fingerprint)));
  } catch {
    return undefined;
  }
}

/** Caches a serialised engine and removes the older ones. */
export async function writeCachedEngine(dir: string, fingerprint: string, bytes: Uint8Array): Promise<void> {
  const file = engineFile(dir, fingerprint);
  await mkdir(dir, { recursive: true });
  await writeAtomic(file, bytes);
  for (const name of await readdir(dir)) {
    if (name.startsWith("engine-") && name.endsWith(".bin") && join(dir, name) !== file) {
      await rm(join(dir, name), { force: true }).catch(() => undefined);
    }
  }
}

/** Removes temp files a crashed process left behind. */
export async function removeStaleTemps(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.startsWith(".") || !name.endsWith(TEMP_SUFFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true }).catch(() => undefined);
  }
}
