import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ByteRange, Storage, StoredMeta, StoredObject } from "../contracts/storage.js";
import { withDirectory } from "../util/with-directory.js";

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,200}){0,4}$/;
const META_SUFFIX = ".meta.json";

interface MetaFile extends StoredMeta {
  createdAt: number;
  /** Size of the data file this metadata belongs to (detects a read between two renames). */
  size: number;
}

/** What `assertStorageKey` accepts, in words (for the messages that refuse a key). */
export const STORAGE_KEY_RULE =
  "up to 5 parts separated by /, each of 1 to 201 of A-Z a-z 0-9 . _ - starting with a letter or digit, no `..`, not ending in .meta.json";

/** Checks a storage key: relative, no `..`, no hidden names, nothing outside the root. */
export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`Invalid storage key: ${JSON.stringify(key).slice(0, 80)}`);
}

/** True when every storage accepts `key` (`assertStorageKey`). */
export function isStorageKey(key: string): boolean {
  return KEY.test(key) && !key.includes("..") && !key.endsWith(META_SUFFIX);
}

/**
 * The built-in storage: files under `<root>`, each with a `.meta.json` sidecar holding
 * content type and expiry. Writes are atomic (temp file, then rename).
 */
export class FsStorage implements Storage {
  readonly name = "fs";

  /** Per-key chain so two puts to one key never interleave their renames. */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  private path(key: string): string {
    assertStorageKey(key);
    return join(this.root, key);
  }

  async put(key: string, body: Uint8Array | Readable, meta: StoredMeta): Promise<{ size: number }> {
    const target = this.path(key);
    const temp = join(dirname(target), `.${randomUUID()}.tmp`);
    const tempMeta = `${temp}.meta`;
    try {
      let size: number;
      if (body instanceof Uint8Array) {
        // The bytes and their metadata at once; the directory is made only when it is missing.
        size = body.byteLength;
        const file: MetaFile = { ...meta, createdAt: Date.now(), size };
        await withDirectory(dirname(target), () =>
          Promise.all([writeFile(temp, body), writeFile(tempMeta, JSON.stringify(file))]),
        );
      } else {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(body, createWriteStream(temp));
        ({ size } = await stat(temp));
        const file: MetaFile = { ...meta, createdAt: Date.now(), size };
        await writeFile(tempMeta, JSON.stringify(file));
      }
      const previous = this.writing.get(key) ?? Promise.resolve();
      const swap = previous
        .catch(() => undefined)
        .then(async () => {
          await rename(temp, target);
          await rename(tempMeta, `${target}${META_SUFFIX}`);
        });
      this.writing.set(key, swap);
      try {
        await swap;
      } finally {
        if (this.writing.get(key) === swap) this.writing.delete(key);
      }
      return { size };
    } catch (error) {
      await rm(temp, { force: true });
      await rm(tempMeta, { force: true });
      throw error;
    }
  }

  private async readMeta(target: string): Promise<MetaFile | undefined> {
    try {
      return JSON.parse(await readFile(`${target}${META_SUFFIX}`, "utf8")) as MetaFile;
    } catch {
      return undefined;
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const target = this.path(key);
    const read = () => Promise.all([this.readMeta(target), stat(target).catch(() => undefined)]);
    let [meta, info] = await read();
    // Read between the data and the metadata rename of an overwrite: read again once.
    if (meta && info && meta.size !== info.size) [meta, info] = await read();
    if (!meta || !info?.isFile()) return undefined;
    if (meta.expiresAt !== undefined && meta.expiresAt <= Date.now()) return undefined;
    const body = createReadStream(target, range ? { start: range.start, end: range.end } : undefined);
    return { body, size: info.size, contentType: meta.contentType, expiresAt: meta.expiresAt, createdAt: meta.createdAt };
  }

  async delete(key: string): Promise<void> {
    const target = this.path(key);
    await rm(target, { force: true });
    await rm(`${target}${META_SUFFIX}`, { force: true });
  }

  localPath(key: string): string {
    return this.path(key);
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.name.endsWith(META_SUFFIX)) {
          const target = full.slice(0, -META_SUFFIX.length);
          const meta = await this.readMeta(target);
          if (meta?.expiresAt !== undefined && meta.expiresAt <= now) {
            await rm(target, { force: true });
            await rm(full, { force: true });
            removed++;
          }
        } else if (entry.name.endsWith(".tmp") || entry.name.endsWith(".tmp.meta")) {
          const info = await stat(full).catch(() => undefined);
          if (info && now - info.mtimeMs > 3_600_000) await rm(full, { force: true });
        }
      }
    };
    await walk(this.root);
    return removed;
  }
}
