import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { afterAll, describe, expect, it } from "vitest";
import { RenderStore } from "../dist/state/file-records.js";

const dir = mkdtempSync(join(tmpdir(), "renderkit-records-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logger = new ConsoleLogger("silent");

describe("RenderStore", () => {
  it("keeps records on disk across instances, wakes waiters, and sweeps expired ones", async () => {
    const store = new RenderStore(dir, 60_000, logger);
    const job = { projectId: "p1", redirectAfter: 7 };
    store.apply({ type: "render.created", renderId: "r1", at: Date.now(), job });
    const waiting = store.wait("r1", 5_000);
    store.apply({ type: "render.started", renderId: "r1", attempt: 2, at: Date.now(), job });
    expect((await store.get("r1"))?.status).toBe("retrying");
    store.apply({
      type: "render.failed",
      renderId: "r1",
      code: "RenderTimeoutError",
      reason: "too slow",
      startTime: 1,
      endTime: 2,
      job,
    });
    expect(await waiting).toMatchObject({
      status: "failed",
      reason: "too slow",
      code: "RenderTimeoutError",
      projectId: "p1",
      redirectAfter: 7,
    });
    await store.flush();

    const again = new RenderStore(dir, 60_000, logger);
    expect(await again.get("r1")).toMatchObject({ status: "failed", projectId: "p1" });
    // The final event, rebuilt from disk for a redelivered job.
    expect(await again.finalEvent("r1")).toEqual({
      type: "render.failed",
      renderId: "r1",
      code: "RenderTimeoutError",
      reason: "too slow",
      startTime: 1,
      endTime: 2,
    });
    expect(await again.get("../etc/passwd")).toBeUndefined();

    expect(await again.sweep(Date.now() + 120_000)).toBe(1);
    expect(existsSync(join(dir, "r1.json"))).toBe(false);
    expect(await again.get("r1")).toBeUndefined();
  });

  it("rebuilds a succeeded render's final event with its result; nothing for one still running", async () => {
    const store = new RenderStore(dir, 60_000, logger);
    const job = { projectId: "p1" };
    store.apply({ type: "render.created", renderId: "r3", at: Date.now(), job });
    expect(await store.finalEvent("r3")).toBeUndefined();
    const result = {
      renderId: "r3",
      renderUrl: "http://x/renders/r3.png",
      size: 10,
      renderTime: 5,
      queueTime: 1,
      bandwidth: 7,
      format: "png",
      contentType: "image/png",
      key: "r3.png",
      path: "/data/renders/r3.png",
      width: 1280,
    };
    await store.apply({ type: "render.succeeded", renderId: "r3", result, startTime: 10, endTime: 15, job });
    const { path: _path, ...recorded } = result;
    expect(await new RenderStore(dir, 60_000, logger).finalEvent("r3")).toEqual({
      type: "render.succeeded",
      renderId: "r3",
      result: recorded,
      startTime: 10,
      endTime: 15,
    });
  });

  it("makes its directory when it is missing, also when it went after an earlier write", async () => {
    const missing = join(dir, "not-yet", "records");
    const store = new RenderStore(missing, 60_000, logger);
    const job = { projectId: "p1" };
    await store.apply({ type: "render.created", renderId: "d1", at: Date.now(), job });
    expect(existsSync(join(missing, "d1.json"))).toBe(true);
    rmSync(join(dir, "not-yet"), { recursive: true });
    await store.apply({ type: "render.created", renderId: "d2", at: Date.now(), job });
    expect(existsSync(join(missing, "d2.json"))).toBe(true);
  });

  it("writes a record again only when an event changed it", async () => {
    const store = new RenderStore(dir, 60_000, logger);
    const job = { projectId: "p1" };
    const file = join(dir, "w1.json");
    await store.apply({ type: "render.created", renderId: "w1", at: Date.now(), job });
    const written = statSync(file).ino;
    // A first attempt's start changes nothing the record says: the file stays as it was.
    await store.apply({ type: "render.started", renderId: "w1", attempt: 1, at: Date.now(), job });
    expect(statSync(file).ino).toBe(written);
    // A second attempt makes it `retrying`: written (a new file renamed into place).
    await store.apply({ type: "render.started", renderId: "w1", attempt: 2, at: Date.now(), job });
    expect(statSync(file).ino).not.toBe(written);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ status: "retrying", attempt: 2 });
  });

  it("times out a wait with the current state", async () => {
    const store = new RenderStore(dir, 60_000, logger);
    store.apply({ type: "render.created", renderId: "r2", at: Date.now(), job: { projectId: "p" } });
    const started = Date.now();
    expect((await store.wait("r2", 200))?.status).toBe("created");
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
