import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertStorageKey } from "@renderkit/core";
import { storageContract } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsStorage } from "../dist/defaults/fs-storage.js";

const roots: string[] = [];
async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "renderkit-fs-storage-"));
  roots.push(root);
  return root;
}
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

storageContract({ name: "FsStorage", make: async () => new FsStorage(await tempRoot()) });

describe("FsStorage specifics", () => {
  let root: string;
  let storage: FsStorage;
  beforeAll(async () => {
    root = await tempRoot();
    storage = new FsStorage(root);
  });

  it("writes the object and a sidecar under its root, nothing else", async () => {
    await storage.put("abc_s.png", Buffer.from("png"), { contentType: "image/png" });
    expect((await readdir(root)).sort()).toEqual(["abc_s.png", "abc_s.png.meta.json"]);
    expect(storage.localPath("abc_s.png")).toBe(join(root, "abc_s.png"));
  });

  it("makes a key's directories when they are missing, also when they went after an earlier put", async () => {
    const fresh = new FsStorage(join(await tempRoot(), "not-yet"));
    await fresh.put("2024/06/a.pdf", Buffer.from("pdf a"), { contentType: "application/pdf" });
    await rm(join(fresh.root, "2024"), { recursive: true });
    await fresh.put("2024/06/b.pdf", Buffer.from("pdf b"), { contentType: "application/pdf" });
    const read = await fresh.get("2024/06/b.pdf");
    expect(read?.size).toBe(5);
    expect(read?.contentType).toBe("application/pdf");
    read?.body.destroy();
    expect(await fresh.get("2024/06/a.pdf")).toBeUndefined();
  });

  it("refuses keys that would escape the root or hit a sidecar", () => {
    for (const key of ["../x", "/abs", "", "a/../b", ".hidden", "a/.b", "a//b", "a\\b", "x.meta.json", "a/b/c/d/e/f"]) {
      expect(() => assertStorageKey(key), key).toThrow();
    }
    for (const key of ["a", "abc_s.png", "2024/06/x.pdf", "a-b.c_d"]) expect(() => assertStorageKey(key), key).not.toThrow();
    expect(() => storage.localPath("../../etc/passwd")).toThrow();
  });

  it("sweep removes temp files older than an hour and keeps fresh ones", async () => {
    const old = join(root, ".left-over.tmp");
    const fresh = join(root, ".in-flight.tmp");
    await writeFile(old, "x");
    await writeFile(fresh, "y");
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(old, hoursAgo, hoursAgo);
    await storage.sweep(Date.now());
    await expect(stat(old)).rejects.toThrow();
    await expect(stat(fresh)).resolves.toBeDefined();
  });

  it("sweep on a root that does not exist yet removes nothing", async () => {
    expect(await new FsStorage(join(root, "not-there")).sweep(Date.now())).toBe(0);
  });
});
