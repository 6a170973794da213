import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RenderJobInfo } from "@renderkit/core";
import { type FinalRenderEvent, WebhookNotifier, type WebhookNotifierOptions, webhookBody } from "@renderkit/notifier-webhook";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { closedPort, failed, notifierDefaults, receiver, SECRET, sleep, succeeded, tempDir, waitFor } from "./helpers.js";

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const cleanup = useCleanup();

/** A file-mode notifier from `notifierDefaults(port)`, closed after the test. */
function notifier(options: Partial<WebhookNotifierOptions> & { dir: string }, port?: number) {
  const defaults = notifierDefaults(port);
  const made = new WebhookNotifier({ ...defaults, ...options });
  cleanup.push(() => made.close());
  return Object.assign(made, { logs: defaults.logger });
}

const files = async (dir: string, state: string) => (await readdir(join(dir, state)).catch(() => [])).sort();
const json = async (dir: string, state: string, id: string) => JSON.parse(await readFile(join(dir, state, `${id}.json`), "utf8"));

describe("WebhookNotifier delivery", () => {
  it("posts render.succeeded: the spec's body, headers and a signature the receiver verifies", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir }, rx.port);
    const event = succeeded("r-ok", { projectId: "p1", webhookUrl: rx.url("/hook?token=abc") });
    await hook.notify(event);
    expect(await files(dir, "pending").then((f) => f.length + rx.hits.length)).toBeGreaterThan(0);
    await waitFor(async () => (await hook.state("r-ok")) === "delivered");

    expect(rx.hits).toHaveLength(1);
    const [hit] = rx.hits;
    expect(hit?.verified).toBe(true);
    expect(hit?.path).toBe("/hook?token=abc");
    expect(hit?.body).toBe(webhookBody(event as FinalRenderEvent));
    expect(hit?.headers["content-type"]).toBe("application/json");
    expect(hit?.headers["user-agent"]).toBe("renderkit-webhook/0.1");
    expect(hit?.headers["x-service-signature"]).toMatch(/^t=\d+,sha256=[0-9a-f]{64}$/);
    const body = JSON.parse(hit?.body ?? "");
    expect(Object.keys(body)).toEqual(["event", "renderId", "result", "meta"]);
    expect(Object.keys(body.result)).toEqual(["renderUrl", "size", "renderTime", "queueTime", "bandwidth"]);
    expect(body.meta.startTime).toMatch(ISO_MS);
    expect(body.meta.endTime).toMatch(ISO_MS);
    // The record moves to delivered/ before the pending file goes (crash-safe order): wait for both.
    await waitFor(async () => (await files(dir, "pending")).length === 0);
    expect(await json(dir, "delivered", "r-ok")).toMatchObject({ renderId: "r-ok", status: 200, attempts: 1 });

    // Logs name the render, host, status and attempt; never the secret, the body or the address's token.
    expect(hook.logs.lines.find((l) => l.message === "webhook delivered")?.fields).toEqual({
      renderId: "r-ok",
      host: `127.0.0.1:${rx.port}`,
      status: 200,
      attempt: 1,
    });
    for (const secret of [SECRET, "token=abc", "renders.example.com"]) expect(hook.logs.text()).not.toContain(secret);
  });

  it("posts render.failed with error.message", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir }, rx.port);
    await hook.notify(failed("r-fail", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(() => rx.hits.length === 1);
    const body = JSON.parse(rx.hits[0]?.body ?? "");
    expect(body).toEqual({
      event: "render.failed",
      renderId: "r-fail",
      error: { message: "The page answered 502" },
      meta: { startTime: "2025-01-02T03:04:05.678Z", endTime: "2025-01-02T03:04:06.912Z" },
    });
    expect(rx.hits[0]?.verified).toBe(true);
  });

  it("ignores other events and final events without job.webhookUrl", async () => {
    const dir = await tempDir(cleanup);
    const hook = notifier({ dir });
    await hook.notify({ type: "render.created", renderId: "a", at: 1, job: { webhookUrl: "http://x" } });
    await hook.notify(succeeded("b", { projectId: "p1" }));
    await hook.notify(failed("c"));
    await hook.notify(succeeded("d", { webhookUrl: 42 } as unknown as RenderJobInfo));
    expect([...(await files(dir, "pending")), ...(await files(dir, "failed"))]).toEqual([]);
  });

  it("retries: 500, 500, then 200 is one delivery after three signed attempts of the same body", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, (i) => (i < 2 ? 500 : 200));
    const hook = notifier({ dir }, rx.port);
    await hook.notify(succeeded("r-retry", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-retry")) === "delivered");
    await sleep(150);
    expect(rx.hits).toHaveLength(3);
    expect(rx.hits.every((h) => h.verified)).toBe(true);
    expect(new Set(rx.hits.map((h) => h.body)).size).toBe(1);
    expect(await json(dir, "delivered", "r-retry")).toMatchObject({ attempts: 3, status: 200 });
  });

  it("gives up after the schedule and records the reasons in failed/", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, () => 503);
    const hook = notifier({ dir, schedule: [30, 30] }, rx.port);
    await hook.notify(succeeded("r-down", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-down")) === "failed");
    await sleep(100);
    expect(rx.hits).toHaveLength(3);
    const record = await json(dir, "failed", "r-down");
    expect(record).toMatchObject({ renderId: "r-down", attempts: 3, reason: "HTTP 503" });
    expect(record.errors.map((e: { status: number }) => e.status)).toEqual([503, 503, 503]);
    await waitFor(async () => (await files(dir, "pending")).length === 0);
    expect(hook.logs.lines.filter((l) => l.level === "warn").map((l) => l.message)).toEqual(["webhook delivery given up"]);
  });

  it("delivers once per render id: concurrent, late and after-restart duplicates are ignored", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir }, rx.port);
    const event = succeeded("r-dup", { projectId: "p1", webhookUrl: rx.url() });
    await Promise.all([hook.notify(event), hook.notify(event), hook.notify(failed("r-dup", event.job))]);
    await waitFor(async () => (await hook.state("r-dup")) === "delivered");
    await hook.notify(event);
    await hook.close();
    const again = notifier({ dir }, rx.port);
    await again.notify(event);
    await sleep(150);
    expect(rx.hits).toHaveLength(1);
    expect(JSON.parse(rx.hits[0]?.body ?? "").event).toBe("render.succeeded");
  });

  it("survives a restart: a pending delivery is sent exactly once by the next notifier", async () => {
    const dir = await tempDir(cleanup);
    const port = await closedPort();
    const first = notifier({ dir, schedule: [300, 300] }, port);
    await first.notify(succeeded("r-durable", { projectId: "p1", webhookUrl: `http://127.0.0.1:${port}/hook` }));
    expect(await files(dir, "pending")).toEqual(["r-durable.json"]);
    await waitFor(async () => (await json(dir, "pending", "r-durable")).attempts === 1);
    await first.close();
    const pending = await json(dir, "pending", "r-durable");
    expect(pending.errors[0].reason).toMatch(/ECONNREFUSED/);

    const rx = await receiver(cleanup, undefined, port);
    const second = notifier({ dir, schedule: [300, 300] }, port);
    await second.start();
    await waitFor(async () => (await second.state("r-durable")) === "delivered");
    await sleep(400);
    expect(rx.hits).toHaveLength(1);
    expect(rx.hits[0]?.verified).toBe(true);
    expect(await json(dir, "delivered", "r-durable")).toMatchObject({ attempts: 2 });
    await waitFor(async () => (await files(dir, "pending")).length === 0);
  });

  it("close() keeps a scheduled retry on disk and returns at once", async () => {
    const dir = await tempDir(cleanup);
    const port = await closedPort();
    // A retry due in 10 minutes: a close() that waited for it would outlast the test.
    const hook = notifier({ dir, schedule: [600_000] }, port);
    await hook.notify(succeeded("r-later", { projectId: "p1", webhookUrl: `http://127.0.0.1:${port}/` }));
    await waitFor(async () => (await json(dir, "pending", "r-later")).attempts === 1);
    await hook.close();
    expect(await files(dir, "pending")).toEqual(["r-later.json"]);
    expect((await json(dir, "pending", "r-later")).attempts).toBe(1);
  });

  it("close() lets a post in flight finish and records its outcome", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, () => (res) => setTimeout(() => res.writeHead(200).end(), 200));
    const hook = notifier({ dir }, rx.port);
    await hook.notify(succeeded("r-inflight", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(() => rx.hits.length === 1);
    await hook.close();
    expect(await hook.state("r-inflight")).toBe("delivered");
  });

  it("close() cuts a post still in flight after 5 s and keeps it pending, attempt uncounted", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, () => "hang");
    const hook = notifier({ dir, timeoutMs: 30_000 }, rx.port);
    await hook.notify(succeeded("r-cut", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(() => rx.hits.length === 1);
    const started = Date.now();
    await hook.close();
    // It gave the post its 5 s grace (a minimum, whatever the load); cut then, not at the post's own
    // 30 s timeout, which would have counted a failed attempt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(await json(dir, "pending", "r-cut")).toMatchObject({ attempts: 0, errors: [] });
  });

  it("does not follow redirects: a 302 is a failed attempt, retried on the schedule", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, () => (res) => res.writeHead(302, { Location: "/elsewhere" }).end());
    const hook = notifier({ dir, schedule: [30] }, rx.port);
    await hook.notify(succeeded("r-302", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-302")) === "failed");
    expect(rx.hits.map((h) => h.path)).toEqual(["/hook", "/hook"]);
    expect((await json(dir, "failed", "r-302")).reason).toMatch(/302.*not followed/);
  });

  it("times out a receiver that never answers and retries", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup, (i) => (i === 0 ? "hang" : 200));
    const hook = notifier({ dir, timeoutMs: 300 }, rx.port);
    const started = Date.now();
    await hook.notify(succeeded("r-slow", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-slow")) === "delivered");
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(rx.hits).toHaveLength(2);
    expect((await json(dir, "delivered", "r-slow")).attempts).toBe(2);
  });

  it("reads at most 64 KiB of an answer: an endless 200 is delivered", async () => {
    const dir = await tempDir(cleanup);
    const chunk = Buffer.alloc(16 * 1024, 120);
    const rx = await receiver(cleanup, () => (res) => {
      res.writeHead(200);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(chunk)), 1);
    });
    const hook = notifier({ dir, timeoutMs: 5_000 }, rx.port);
    await hook.notify(succeeded("r-big", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-big")) === "delivered");
    // Delivered by the first attempt: reading the endless answer would have timed it out instead.
    expect((await json(dir, "delivered", "r-big")).attempts).toBe(1);
    expect(rx.hits).toHaveLength(1);
  });
});

describe("WebhookNotifier refusals", () => {
  it("refuses a private address that is not allowed: no request, failed at once without retries", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir, allowPrivate: [`127.0.0.1:${rx.port + 1}`] });
    await hook.notify(succeeded("r-private", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-private")) === "failed");
    await sleep(150);
    expect(rx.hits).toHaveLength(0);
    const record = await json(dir, "failed", "r-private");
    expect(record.attempts).toBe(1);
    expect(record.reason).toMatch(/127\.0\.0\.1 is not a public address/);
  });

  it("refuses a name that resolves to a private address, and a name that does not resolve", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const lookup = async (host: string) => {
      if (host === "sneaky.example") return [{ address: "127.0.0.1", family: 4 as const }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    const hook = notifier({ dir, lookup });
    await hook.notify(succeeded("r-rebind", { projectId: "p1", webhookUrl: `http://sneaky.example:${rx.port}/` }));
    await hook.notify(succeeded("r-nxdomain", { projectId: "p1", webhookUrl: "http://nowhere.example/" }));
    await waitFor(async () => (await hook.state("r-rebind")) === "failed" && (await hook.state("r-nxdomain")) === "failed");
    expect(rx.hits).toHaveLength(0);
    // One answer for both names: the reason cannot tell which internal names exist.
    expect((await json(dir, "failed", "r-rebind")).reason).toMatch(/sneaky\.example does not resolve to a public address/);
    expect(await json(dir, "failed", "r-nxdomain")).toMatchObject({
      attempts: 1,
      reason: expect.stringMatching(/does not resolve/),
    });
  });

  it("connects to the pinned address and keeps the host name in the Host header", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    let lookups = 0;
    const lookup = async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 as const }];
    };
    const hook = notifier({ dir, lookup }, rx.port);
    await hook.notify(succeeded("r-pin", { projectId: "p1", webhookUrl: `http://hooks.example:${rx.port}/in` }));
    await waitFor(async () => (await hook.state("r-pin")) === "delivered");
    expect(rx.hits[0]?.headers.host).toBe(`hooks.example:${rx.port}`);
    expect(rx.hits[0]?.verified).toBe(true);
    expect(lookups).toBe(1);
  });

  it("fails at once without a secret, and for non-http schemes or invalid addresses", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir }, rx.port);
    await hook.notify(succeeded("r-nosecret", { projectId: "other", webhookUrl: rx.url() }));
    await hook.notify(succeeded("r-ftp", { projectId: "p1", webhookUrl: "ftp://127.0.0.1/x" }));
    await hook.notify(succeeded("r-bad", { projectId: "p1", webhookUrl: "not a url" }));
    for (const id of ["r-nosecret", "r-ftp", "r-bad"]) await waitFor(async () => (await hook.state(id)) === "failed");
    expect(rx.hits).toHaveLength(0);
    expect((await json(dir, "failed", "r-nosecret")).reason).toBe(
      "no webhook secret is configured for the render of project other",
    );
    expect((await json(dir, "failed", "r-ftp")).reason).toMatch(/unsupported scheme ftp:/);
    expect((await json(dir, "failed", "r-bad")).reason).toMatch(/not a valid URL/);
  });

  it("keeps ids that are not plain file names inside its directory", async () => {
    const dir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const hook = notifier({ dir }, rx.port);
    await hook.notify(succeeded("../../escape", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("../../escape")) === "delivered");
    expect(await files(dir, "delivered")).toEqual([expect.stringMatching(/^~[0-9a-f]{64}\.json$/)]);
    expect(JSON.parse(rx.hits[0]?.body ?? "").renderId).toBe("../../escape");
  });
});
