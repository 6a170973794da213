import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JobHandler, QueueJob } from "@renderkit/core";
import { FsQueue } from "@renderkit/core/internal";
import { delay, expectRenderError, queueContract, queueJob } from "@renderkit/core/testing";
import { afterAll, describe, expect, it, vi } from "vitest";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "renderkit-fs-queue-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const until = (check: () => void | Promise<void>, timeout = 10_000) => vi.waitFor(check, { timeout, interval: 20 });
const list = async (dir: string, folder: string) => (await readdir(join(dir, folder)).catch(() => [])).sort();
const never: JobHandler = () => new Promise(() => {});

/** Starts a fresh queue on `dir` that records what it delivers; the caller closes it. */
async function collect(dir: string, concurrency = 1): Promise<{ queue: FsQueue; seen: QueueJob[] }> {
  const seen: QueueJob[] = [];
  const queue = new FsQueue(dir);
  await queue.start(
    async (job) => {
      seen.push(job);
    },
    { concurrency },
  );
  return { queue, seen };
}

queueContract({ name: "FsQueue", make: async () => new FsQueue(await tempDir()) });

describe("FsQueue durability", () => {
  it("keeps jobs added before a close without start (waited for or not), and delivers them once on the next start", async () => {
    const dir = await tempDir();
    const first = new FsQueue(dir);
    const jobs = Array.from({ length: 5 }, (_, i) => queueJob({ i, nested: { text: "é ✓", list: [1, null, true] } }));
    // A job a client waits for is stored without flushing (`waited`), and stored all the same.
    const added = jobs.map((job, i) => ({ ...job, waited: i % 2 === 0 }));
    for (const job of added) await first.add(job);
    expect(await first.counts()).toEqual({ waiting: 5, active: 0 });
    await first.close(1_000);
    const names = await list(dir, "waiting");
    expect(names).toHaveLength(5);
    // Names sort in enqueue order and end with the id.
    expect(names.map((n) => n.replace(/^\d{15}-\d{6}-/, "").replace(/\.json$/, ""))).toEqual(jobs.map((j) => j.id));

    const { queue, seen } = await collect(dir);
    try {
      await until(() => expect(seen).toHaveLength(5));
      await delay(150);
      expect(seen).toEqual(jobs);
      await until(async () => expect(await list(dir, "active")).toEqual([]));
      expect(await list(dir, "waiting")).toEqual([]);
    } finally {
      await queue.close(1_000);
    }
  });

  it("redelivers a job still running at close with attempt 2, before the waiting ones", async () => {
    const dir = await tempDir();
    const first = new FsQueue(dir);
    let reason: unknown;
    const stuck: JobHandler = (_job, signal) => {
      signal.addEventListener("abort", () => {
        reason = signal.reason;
      });
      return new Promise(() => {}); // ignores the abort: must keep its file
    };
    await first.start(stuck, { concurrency: 1 });
    const a = queueJob({ which: "a" }, "job-a");
    const b = queueJob({ which: "b" }, "job-b");
    await first.add(a);
    await first.add(b);
    await until(async () => expect(await first.counts()).toEqual({ waiting: 1, active: 1 }));
    await first.close(50);
    expect(reason).toMatchObject({ code: "TimedOutError" });
    expect(await list(dir, "active")).toEqual([expect.stringMatching(/-job-a\.json$/)]);
    expect(await list(dir, "waiting")).toEqual([expect.stringMatching(/-job-b\.json$/)]);

    const { queue, seen } = await collect(dir);
    try {
      await until(() => expect(seen).toHaveLength(2));
      expect(seen).toEqual([
        { ...a, attempt: 2 },
        { ...b, attempt: 1 },
      ]);
    } finally {
      await queue.close(1_000);
    }
  });

  it("loses nothing when the process is killed with SIGKILL", async () => {
    const dir = await tempDir();
    const fixture = fileURLToPath(new URL("./fixtures/fs-queue-child.mjs", import.meta.url));
    const child = spawn(process.execPath, [fixture, dir], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes("ready")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
        setTimeout(() => reject(new Error(`child not ready in time: ${stderr}`)), 20_000).unref();
      });
    } finally {
      child.kill("SIGKILL");
    }
    expect(await exited).toBe("SIGKILL");
    expect(await list(dir, "active")).toHaveLength(1);
    expect(await list(dir, "waiting")).toHaveLength(4);

    const { queue, seen } = await collect(dir);
    try {
      await until(() => expect(seen).toHaveLength(5));
      await delay(200);
      expect(seen.map((j) => [j.id, j.attempt])).toEqual([
        ["job-1", 2],
        ["job-2", 1],
        ["job-3", 1],
        ["job-4", 1],
        ["job-5", 1],
      ]);
      expect(seen.map((j) => j.data)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n, text: "é ✓" })));
    } finally {
      await queue.close(1_000);
    }
  });

  it("a second crash during a redelivery raises the attempt again", async () => {
    const dir = await tempDir();
    for (const expected of [1, 2, 3]) {
      const seen: number[] = [];
      const queue = new FsQueue(dir);
      await queue.start(
        (job, _signal) => {
          seen.push(job.attempt);
          return new Promise(() => {});
        },
        { concurrency: 1 },
      );
      if (expected === 1) await queue.add(queueJob({}, "poison"));
      await until(() => expect(seen).toEqual([expected]));
      await queue.close(10); // the handler never settles: like a crash mid-render
    }
  }, 30_000);

  it("skips partial and unreadable files without crashing, setting unreadable ones aside", async () => {
    const dir = await tempDir();
    const first = new FsQueue(dir);
    const good = queueJob({ ok: true }, "good");
    await first.add(good);
    await first.close(1_000);
    await mkdir(join(dir, "active"), { recursive: true });
    await writeFile(join(dir, "waiting", "000000000000001-000000-cut.json.tmp"), '{"id":"cut","da');
    await writeFile(join(dir, "waiting", "000000000000002-000000-garbage.json"), "{not json");
    await writeFile(join(dir, "waiting", "000000000000003-000000-shape.json"), '{"id":"../../etc","attempt":1}');
    await writeFile(join(dir, "active", "000000000000004-000000-half.json"), '{"id":"half","data":{');
    await writeFile(join(dir, "waiting", "notes.txt"), "left by an operator");

    const { queue, seen } = await collect(dir);
    try {
      await until(() => expect(seen).toHaveLength(1));
      await delay(100);
      expect(seen).toEqual([good]);
      expect(await list(dir, "broken")).toEqual([
        "active-000000000000004-000000-half.json",
        "waiting-000000000000002-000000-garbage.json",
        "waiting-000000000000003-000000-shape.json",
      ]);
      expect(await list(dir, "waiting")).toEqual(["notes.txt"]);
      // New jobs still sort after everything that was on disk.
      const later = queueJob({ later: true });
      await queue.add(later);
      await until(() => expect(seen).toEqual([good, later]));
    } finally {
      await queue.close(1_000);
    }
  });
});

describe("FsQueue refusals", () => {
  it("refuses a duplicate id, also one left on disk by an earlier process", async () => {
    const dir = await tempDir();
    const first = new FsQueue(dir);
    await first.add(queueJob({}, "same"));
    await expectRenderError(first.add(queueJob({}, "same")), "InvalidOptions");
    await first.close(1_000);
    const second = new FsQueue(dir);
    await expectRenderError(second.add(queueJob({}, "same")), "InvalidOptions");
    await second.close(1_000);
  });

  it("refuses jobs beyond maxWaiting with a retryable ServiceUnavailable", async () => {
    const queue = new FsQueue(await tempDir(), { maxWaiting: 2 });
    await queue.start(never, { concurrency: 1 });
    try {
      for (let i = 0; i < 3; i++) await queue.add(queueJob({ i }));
      await until(async () => expect(await queue.counts()).toEqual({ waiting: 2, active: 1 }));
      const error = await expectRenderError(queue.add(queueJob({ i: 3 })), "ServiceUnavailable");
      expect(error).toMatchObject({ retryable: true });
    } finally {
      await queue.close(10);
    }
  });

  it("counts concurrent adds against maxWaiting before their files are written", async () => {
    const queue = new FsQueue(await tempDir(), { maxWaiting: 3 });
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => queue.add(queueJob({ i }))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    expect(await queue.counts()).toEqual({ waiting: 3, active: 0 });
    await queue.close(1_000);
  });

  it("refuses ids that are not safe file names", async () => {
    const queue = new FsQueue(await tempDir());
    for (const id of ["", "../x", "a/b", "a.b", "x".repeat(129), "é"]) {
      await expectRenderError(queue.add(queueJob({}, id)), "InvalidOptions");
    }
    await queue.add(queueJob({}, "x".repeat(128)));
    await queue.close(1_000);
  });

  it("survives a handler that throws synchronously and removes its file", async () => {
    const dir = await tempDir();
    const done: string[] = [];
    const queue = new FsQueue(dir);
    const handler = ((job: QueueJob) => {
      if (job.id === "boom") throw new Error("thrown before any promise");
      done.push(job.id);
      return Promise.resolve();
    }) as JobHandler;
    await queue.start(handler, { concurrency: 1 });
    try {
      await queue.add(queueJob({}, "boom"));
      await queue.add(queueJob({}, "fine"));
      await until(() => expect(done).toEqual(["fine"]));
      await until(async () => expect(await list(dir, "active")).toEqual([]));
      expect(await list(dir, "waiting")).toEqual([]);
    } finally {
      await queue.close(1_000);
    }
  });

  it("refuses a second start", async () => {
    const queue = new FsQueue(await tempDir());
    await queue.start(async () => {}, { concurrency: 1 });
    await expect(queue.start(async () => {}, { concurrency: 1 })).rejects.toThrow();
    await queue.close();
  });
});
