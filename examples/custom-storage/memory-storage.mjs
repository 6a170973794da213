// A custom storage plugin: renders kept in this process's memory, within a byte budget. Useful for
// tests, short-lived workers that hand each render on at once, and a single-process server whose
// renders need not outlive it; a template for a storage of your own (a database, a CDN). It passes
// the core's `storageContract` (test/memory-storage.test.mjs).

import { Readable } from "node:stream";
import { assertStorageKey, definePlugin, STORAGE } from "@renderkit/core";

/** Collects a body into one Buffer; a failing stream rejects and nothing is stored. */
async function bytesOf(body) {
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export class MemoryStorage {
  name = "memory";
  #objects = new Map();
  #used = 0;
  #maxBytes;

  constructor({ maxBytes = 256 * 1024 * 1024 } = {}) {
    this.#maxBytes = maxBytes;
  }

  async put(key, body, meta) {
    assertStorageKey(key);
    const bytes = await bytesOf(body);
    const previous = this.#objects.get(key)?.bytes.length ?? 0;
    if (this.#used - previous + bytes.length > this.#maxBytes) {
      // A full store refuses rather than dropping renders somebody may still fetch.
      throw new Error(`memory storage is full (${this.#maxBytes} bytes); sweep or raise maxBytes`);
    }
    // Swapped in whole: a reader sees the old object or the new one, never a mix.
    this.#objects.set(key, { bytes, contentType: meta.contentType, expiresAt: meta.expiresAt, createdAt: Date.now() });
    this.#used += bytes.length - previous;
    return { size: bytes.length };
  }

  async get(key, range) {
    assertStorageKey(key);
    const object = this.#objects.get(key);
    if (!object || (object.expiresAt !== undefined && object.expiresAt <= Date.now())) return undefined;
    const bytes = range ? object.bytes.subarray(range.start, range.end + 1) : object.bytes;
    return {
      body: Readable.from([bytes]),
      size: object.bytes.length,
      contentType: object.contentType,
      createdAt: object.createdAt,
      ...(object.expiresAt !== undefined ? { expiresAt: object.expiresAt } : {}),
    };
  }

  async delete(key) {
    assertStorageKey(key);
    const object = this.#objects.get(key);
    if (!object) return;
    this.#objects.delete(key);
    this.#used -= object.bytes.length;
  }

  /** The core calls it hourly: drops what expired before `now`. */
  async sweep(now) {
    let removed = 0;
    for (const [key, object] of this.#objects) {
      if (object.expiresAt !== undefined && object.expiresAt < now) {
        this.#objects.delete(key);
        this.#used -= object.bytes.length;
        removed++;
      }
    }
    return removed;
  }

  /** Bytes held right now. */
  get usedBytes() {
    return this.#used;
  }

  async close() {
    this.#objects.clear();
    this.#used = 0;
  }
}

/** `createRenderer({ plugins: [playwright(), memoryStorage({ maxBytes })] })` */
export const memoryStorage = definePlugin((options = {}) => ({
  name: "example/storage-memory",
  // The cores it works with (its peerDependencies range): another core refuses it at start.
  core: "^0.1.0",
  register({ provide }) {
    // Providing STORAGE replaces the built-in file storage for this renderer only.
    provide(STORAGE, new MemoryStorage(options));
  },
}));
// The server's `plugins` config calls the default export with the entry's `options`.
export default memoryStorage;
