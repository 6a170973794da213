import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { freePort, startRedis, useRedis } from "../../../test/helpers/redis.js";
import { bullmqNotifier, freshPrefix, hitsPerRender } from "./bullmq-helpers.js";
import { receiver, SECRET, sleep, succeeded, waitFor } from "./helpers.js";

const CHILD = fileURLToPath(new URL("./fixtures/bullmq-deliver-child.mjs", import.meta.url));

const redis = useRedis();
const cleanup = useCleanup();

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

describe("BullMqWebhookNotifier across nodes", () => {
  it("two delivering instances on one Redis: 20 renders notified through either (and both) are each delivered once", async () => {
    const rx = await receiver(cleanup);
    const prefix = freshPrefix();
    const a = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { concurrency: 4 });
    const b = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { concurrency: 4 });
    const ids = Array.from({ length: 20 }, (_, i) => `r-many-${i}`);
    await Promise.all(
      ids.flatMap((id, i) => {
        const event = succeeded(id, { projectId: "p1", webhookUrl: rx.url() });
        // Every render through one node, every third one through the other node too (a redelivered render job).
        const first = i % 2 === 0 ? a : b;
        const second = i % 2 === 0 ? b : a;
        return i % 3 === 0 ? [first.notify(event), second.notify(event)] : [first.notify(event)];
      }),
    );
    for (const id of ids) await waitFor(async () => (await a.state(id)) === "delivered", 15_000);
    await sleep(300);
    const counts = hitsPerRender(rx);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(rx.hits.every((h) => h.verified)).toBe(true);
    const delivered = (hook: typeof a) => hook.logs.lines.filter((l) => l.message === "webhook delivered").length;
    expect(delivered(a) + delivered(b)).toBe(20);
  });

  it("a delivering process killed with SIGKILL mid-POST: another instance takes the delivery over", async () => {
    // The first POST is held open until its sender dies; the next one is answered.
    const rx = await receiver(cleanup, (i) => (i === 0 ? "hang" : 200));
    const prefix = freshPrefix();
    const url = rx.url("/hook?token=abc");
    const child = spawn(process.execPath, [CHILD, redis.url, prefix, url, "r-crash", SECRET], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    cleanup.push(() => kill(child));
    let output = "";
    child.stdout?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    await waitFor(() => rx.hits.length === 1, 20_000).catch((error: unknown) => {
      throw new Error(`the child never posted: ${String(error)}\n${output}`);
    });
    expect(output).toContain("notified");
    await kill(child);

    const survivor = bullmqNotifier(cleanup, { url: redis.url, prefix, lockMs: 1_000 }, rx.port);
    expect(await survivor.state("r-crash")).toBe("pending");
    await survivor.start();
    await waitFor(async () => (await survivor.state("r-crash")) === "delivered", 20_000);
    // At-least-once is the honest guarantee for a crash mid-POST: the receiver may have seen the
    // first POST too (here it never answered it). Receivers dedupe by renderId; what matters is
    // that the delivery was not lost, and that every copy is the same signed body.
    expect(rx.hits.length).toBeGreaterThanOrEqual(2);
    expect(rx.hits.every((h) => h.verified && h.path === "/hook?token=abc")).toBe(true);
    expect(new Set(rx.hits.map((h) => h.body)).size).toBe(1);
    expect(survivor.logs.lines.map((l) => l.message)).toContain(
      "webhook delivery stalled (its worker stopped); delivering again",
    );
    // The redelivered render job notifying again does not make another delivery.
    await survivor.notify(succeeded("r-crash", { projectId: "p1", webhookUrl: url }));
    await sleep(300);
    expect(rx.hits.filter((_, i) => i > 0)).toHaveLength(1);
  });

  it("close() cuts a post still in flight after 5 s; the delivery goes back to the queue, uncounted", async () => {
    const rx = await receiver(cleanup, (i) => (i === 0 ? "hang" : 200));
    const prefix = freshPrefix();
    const first = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { timeoutMs: 30_000 });
    await first.notify(succeeded("r-cut", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(() => rx.hits.length === 1);
    const started = Date.now();
    await first.close();
    // The 5 s grace is a minimum whatever the load; being cut then rather than at the post's own
    // 30 s timeout shows below: the attempt is not counted.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);

    const next = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port);
    await waitFor(async () => (await next.state("r-cut")) === "delivered");
    expect(rx.hits).toHaveLength(2);
    // The cut attempt was not counted: the next one is attempt 1 of the schedule.
    expect(next.logs.lines.find((l) => l.message === "webhook delivered")?.fields?.attempt).toBe(1);
  });
});

describe("BullMqWebhookNotifier without Redis", () => {
  it("Redis stopped: notify() rejects quickly and close() returns", async () => {
    const own = await startRedis();
    cleanup.push(() => own.stop());
    const rx = await receiver(cleanup);
    const hook = bullmqNotifier(cleanup, { url: own.url, prefix: freshPrefix() }, rx.port);
    await hook.notify(succeeded("r-before", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-before")) === "delivered");
    await own.stop();

    // Both end on their own (a command queued for a Redis that is gone would wait forever).
    await expect(hook.notify(succeeded("r-after", { projectId: "p1", webhookUrl: rx.url() }))).rejects.toThrow();
    await hook.close();
    expect(rx.hits).toHaveLength(1);
  });

  it("Redis never reachable: notify() rejects within seconds and close() returns", async () => {
    const port = await freePort();
    const hook = bullmqNotifier(cleanup, { url: `redis://127.0.0.1:${port}`, prefix: freshPrefix() }, undefined);
    await expect(
      hook.notify(succeeded("r-nowhere", { projectId: "p1", webhookUrl: "https://example.com/hook" })),
    ).rejects.toThrow(/did not store/);
    await hook.close();
    await expect(hook.notify(succeeded("r-late", { projectId: "p1", webhookUrl: "https://example.com/hook" }))).rejects.toThrow(
      /closed/,
    );
  });
});
