import { randomBytes, randomUUID } from "node:crypto";
import { access, readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Storage } from "../contracts/storage.js";
import { readAll } from "./assertions.js";

export interface StorageContractOptions {
  /** Title of the `describe` block. */
  name: string;
  /** The storage under test; called once for the whole suite. */
  make: () => Promise<Storage> | Storage;
  /** Removes what the suite stored, after it (before `storage.close`). */
  cleanup?: (storage: Storage) => Promise<void> | void;
  /** Fetch `publicUrl` addresses and compare the bytes (default true). */
  fetchPublicUrl?: boolean;
}

const INVALID_KEYS = ["../x", "/abs", "", "a/../b"];

/**
 * The behaviour every `Storage` must show. Registers a `describe` block; `make` is called once,
 * `cleanup` (and `storage.close`) after the suite. Keys live under a random prefix, so a shared
 * bucket or directory is fine.
 */
export function storageContract(options: StorageContractOptions): void {
  const { name, make, cleanup } = options;
  describe(`storage contract: ${name}`, () => {
    let storage: Storage;
    const prefix = `contract-${randomUUID()}`;
    let n = 0;
    const key = (ext = "bin") => `${prefix}/${++n}.${ext}`;
    const text = async (k: string, range?: { start: number; end: number }) => {
      const object = await storage.get(k, range);
      return object ? (await readAll(object.body)).toString("utf8") : undefined;
    };

    beforeAll(async () => {
      storage = await make();
    });
    afterAll(async () => {
      if (!storage) return;
      await cleanup?.(storage);
      await storage.close?.();
    });

    it("stores a Uint8Array and reads back body, size, contentType and createdAt", async () => {
      const k = key("png");
      const bytes = new Uint8Array(randomBytes(4096));
      const before = Date.now();
      expect(await storage.put(k, bytes, { contentType: "image/png" })).toEqual({ size: 4096 });
      const object = await storage.get(k);
      expect(object).toBeDefined();
      expect(object?.size).toBe(4096);
      expect(object?.contentType).toBe("image/png");
      expect(object?.createdAt).toBeGreaterThanOrEqual(before - 2_000);
      expect(object?.createdAt).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(Buffer.compare(await readAll(object!.body), Buffer.from(bytes))).toBe(0);
    });

    it("stores a Readable body and reports its total size", async () => {
      const k = key("pdf");
      const parts = [randomBytes(70_000), randomBytes(1), randomBytes(300_000)];
      expect(await storage.put(k, Readable.from(parts), { contentType: "application/pdf" })).toEqual({ size: 370_001 });
      const object = await storage.get(k);
      expect(object?.size).toBe(370_001);
      expect(Buffer.compare(await readAll(object!.body), Buffer.concat(parts))).toBe(0);
    });

    it("keeps expiresAt when it is in the future", async () => {
      const k = key();
      const expiresAt = Date.now() + 3_600_000;
      await storage.put(k, Buffer.from("x"), { contentType: "text/plain", expiresAt });
      const object = await storage.get(k);
      expect(Math.abs((object?.expiresAt ?? 0) - expiresAt)).toBeLessThan(1_000);
      object?.body.destroy();
    });

    it("reads inclusive byte ranges while size stays the total", async () => {
      const k = key("txt");
      await storage.put(k, Buffer.from("0123456789"), { contentType: "text/plain" });
      const middle = await storage.get(k, { start: 2, end: 5 });
      expect(middle?.size).toBe(10);
      expect(middle?.contentType).toBe("text/plain");
      expect((await readAll(middle!.body)).toString()).toBe("2345");
      expect(await text(k, { start: 0, end: 0 })).toBe("0");
      expect(await text(k, { start: 7, end: 9 })).toBe("789");
    });

    it("answers undefined for a missing key", async () => {
      expect(await storage.get(key())).toBeUndefined();
    });

    it("replaces an object on a second put", async () => {
      const k = key();
      await storage.put(k, Buffer.from("one"), { contentType: "text/plain" });
      await storage.put(k, Readable.from([Buffer.from("two!")]), { contentType: "text/markdown" });
      const object = await storage.get(k);
      expect(object?.size).toBe(4);
      expect(object?.contentType).toBe("text/markdown");
      expect((await readAll(object!.body)).toString()).toBe("two!");
    });

    it("never shows a half-written object when two puts race on one key", async () => {
      const k = key();
      const a = Buffer.alloc(512 * 1024, "a");
      const b = Buffer.alloc(512 * 1024, "b");
      await Promise.all([
        storage.put(k, Readable.from([a.subarray(0, 1000), a.subarray(1000)]), { contentType: "text/plain" }),
        storage.put(k, b, { contentType: "text/plain" }),
      ]);
      const body = await readAll((await storage.get(k))!.body);
      expect(body.equals(a) || body.equals(b)).toBe(true);
    });

    it("stores nothing when the Readable body fails", async () => {
      const k = key();
      let sent = false;
      const failing = new Readable({
        read() {
          if (sent) this.destroy(new Error("source failed"));
          else this.push(Buffer.alloc(10_000, 1));
          sent = true;
        },
      });
      await expect(storage.put(k, failing, { contentType: "text/plain" })).rejects.toThrow();
      expect(await storage.get(k)).toBeUndefined();
    });

    it("deletes objects; deleting a missing key is fine", async () => {
      const k = key();
      await storage.put(k, Buffer.from("bye"), { contentType: "text/plain" });
      await storage.delete(k);
      expect(await storage.get(k)).toBeUndefined();
      await expect(storage.delete(k)).resolves.toBeUndefined();
      await expect(storage.delete(key())).resolves.toBeUndefined();
    });

    it("does not return expired objects", async () => {
      const k = key();
      await storage.put(k, Buffer.from("old"), { contentType: "text/plain", expiresAt: Date.now() - 1_000 });
      expect(await storage.get(k)).toBeUndefined();
    });

    it("sweep(now) removes what expired before now, and only that", async (ctx) => {
      if (!storage.sweep) return ctx.skip();
      const expired = key();
      const later = key();
      const forever = key();
      await storage.put(expired, Buffer.from("a"), { contentType: "text/plain", expiresAt: Date.now() - 1_000 });
      await storage.put(later, Buffer.from("b"), { contentType: "text/plain", expiresAt: Date.now() + 3_600_000 });
      await storage.put(forever, Buffer.from("c"), { contentType: "text/plain" });
      const expiredPath = storage.localPath?.(expired);
      expect(await storage.sweep(Date.now())).toBeGreaterThanOrEqual(1);
      if (expiredPath) await expect(access(expiredPath)).rejects.toThrow();
      expect(await text(later)).toBe("b");
      expect(await storage.sweep(Date.now() + 7_200_000)).toBeGreaterThanOrEqual(1);
      expect(await storage.get(later)).toBeUndefined();
      expect(await text(forever)).toBe("c");
    });

    it.each(INVALID_KEYS)("refuses the invalid key %j", async (bad) => {
      await expect(storage.put(bad, Buffer.from("x"), { contentType: "text/plain" })).rejects.toThrow();
      await expect(storage.get(bad)).rejects.toThrow();
      await expect(storage.delete(bad)).rejects.toThrow();
    });

    it("localPath, when implemented, names a file holding the bytes", async (ctx) => {
      if (!storage.localPath) return ctx.skip();
      const k = key("png");
      await storage.put(k, Buffer.from("local bytes"), { contentType: "image/png" });
      const path = storage.localPath(k);
      expect(path).toBeTypeOf("string");
      expect((await readFile(path!)).toString()).toBe("local bytes");
    });

    it("publicUrl, when implemented, is an http(s) address serving the bytes", async (ctx) => {
      if (!storage.publicUrl) return ctx.skip();
      const k = key("png");
      await storage.put(k, Buffer.from("public bytes"), { contentType: "image/png" });
      const address = new URL(await storage.publicUrl(k, 600));
      expect(["http:", "https:"]).toContain(address.protocol);
      if (options.fetchPublicUrl === false) return;
      const answer = await fetch(address);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe("public bytes");
    });
    it("signedUrl, when implemented, is an http(s) address serving the bytes", async (ctx) => {
      if (!storage.signedUrl) return ctx.skip();
      const k = key("pdf");
      await storage.put(k, Buffer.from("signed bytes"), { contentType: "application/pdf" });
      const address = new URL(await storage.signedUrl(k, 300));
      expect(["http:", "https:"]).toContain(address.protocol);
      const answer = await fetch(address);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe("signed bytes");
    });
  });
}
