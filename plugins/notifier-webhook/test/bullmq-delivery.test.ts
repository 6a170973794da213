import { type FinalRenderEvent, verifyWebhookSignature, webhookBody } from "@renderkit/notifier-webhook";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { useRedis } from "../../../test/helpers/redis.js";
import { bullmqNotifier, freshPrefix } from "./bullmq-helpers.js";
import { failed, receiver, SECRET, sleep, succeeded, waitFor } from "./helpers.js";

const redis = useRedis();
const cleanup = useCleanup();

/** Reads the job the notifier stored, through a queue of the test's own. */
async function storedJob(prefix: string, jobId: string) {
  const connection = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const queue = new Queue("webhooks", { connection, prefix });
  try {
    return await queue.getJob(jobId);
  } finally {
    await queue.close();
    await connection.quit();
  }
}

describe("BullMqWebhookNotifier delivery", () => {
  it("one final event: one job with id = render id, one signed POST of webhookBody(event), state delivered", async () => {
    const rx = await receiver(cleanup);
    const prefix = freshPrefix();
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port);
    const event = succeeded("r-ok", { projectId: "p1", webhookUrl: rx.url("/hook?token=abc") });
    await hook.notify(event);
    await waitFor(async () => (await hook.state("r-ok")) === "delivered");

    expect(rx.hits).toHaveLength(1);
    const [hit] = rx.hits;
    const signature = hit?.headers["x-service-signature"];
    expect(verifyWebhookSignature(typeof signature === "string" ? signature : undefined, hit?.body ?? "", SECRET)).toBe(true);
    expect(hit?.body).toBe(webhookBody(event as FinalRenderEvent));
    expect(hit?.path).toBe("/hook?token=abc");
    expect(hit?.headers["content-type"]).toBe("application/json");

    const job = await storedJob(prefix, "r-ok");
    expect(job?.data).toEqual({ renderId: "r-ok", url: rx.url("/hook?token=abc"), projectId: "p1", body: hit?.body });
    expect(job?.opts.attempts).toBe(4);
    expect(job?.returnvalue).toEqual({ status: 200, attempt: 1 });

    expect(hook.logs.lines.find((l) => l.message === "webhook delivered")?.fields).toEqual({
      renderId: "r-ok",
      host: `127.0.0.1:${rx.port}`,
      status: 200,
      attempt: 1,
    });
    // Never the address's path or query, the body, or the secret.
    for (const secret of [SECRET, "token=abc", "/hook", "renders.example.com"]) expect(hook.logs.text()).not.toContain(secret);
  });

  it("ignores other events and final events without job.webhookUrl", async () => {
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix: freshPrefix() }, undefined);
    await hook.notify({ type: "render.created", renderId: "a", at: 1, job: { webhookUrl: "http://x" } });
    await hook.notify(succeeded("b", { projectId: "p1" }));
    await hook.notify(failed("c"));
    for (const id of ["a", "b", "c"]) expect(await hook.state(id)).toBeUndefined();
  });

  it("notify twice before delivery and again after it: still one POST", async () => {
    const rx = await receiver(cleanup, () => (res) => setTimeout(() => res.writeHead(200).end(), 200));
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix: freshPrefix() }, rx.port);
    const event = succeeded("r-dup", { projectId: "p1", webhookUrl: rx.url() });
    await Promise.all([hook.notify(event), hook.notify(event), hook.notify(failed("r-dup", event.job))]);
    expect(await hook.state("r-dup")).toBe("pending");
    await hook.notify(event);
    await waitFor(async () => (await hook.state("r-dup")) === "delivered");
    await hook.notify(event);
    await hook.notify(failed("r-dup", event.job));
    await sleep(300);
    expect(rx.hits).toHaveLength(1);
    expect(JSON.parse(rx.hits[0]?.body ?? "").event).toBe("render.succeeded");
  });

  it("500, 500, then 200: delivered on the 3rd attempt after the schedule's delays, same body each time", async () => {
    const times: number[] = [];
    const rx = await receiver(cleanup, (i) => {
      times.push(Date.now());
      return i < 2 ? 500 : 200;
    });
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix: freshPrefix() }, rx.port, { schedule: [200, 400] });
    await hook.notify(succeeded("r-retry", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-retry")) === "delivered");
    await sleep(200);
    expect(rx.hits).toHaveLength(3);
    expect(rx.hits.every((h) => h.verified)).toBe(true);
    expect(new Set(rx.hits.map((h) => h.body)).size).toBe(1);
    const [first = 0, second = 0, third = 0] = times;
    expect(second - first).toBeGreaterThanOrEqual(195);
    expect(second - first).toBeLessThan(1_500);
    expect(third - second).toBeGreaterThanOrEqual(395);
    expect(third - second).toBeLessThan(1_700);
    const retries = hook.logs.lines.filter((l) => l.message === "webhook attempt failed, will retry");
    expect(retries.map((l) => [l.fields?.attempt, l.fields?.retryInMs, l.fields?.status])).toEqual([
      [1, 200, 500],
      [2, 400, 500],
    ]);
    expect(hook.logs.lines.find((l) => l.message === "webhook delivered")?.fields?.attempt).toBe(3);
  });

  it("gives up after the schedule: failed, schedule.length + 1 POSTs, one warn line", async () => {
    const rx = await receiver(cleanup, () => 503);
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix: freshPrefix() }, rx.port, { schedule: [100, 100] });
    await hook.notify(succeeded("r-down", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-down")) === "failed");
    await sleep(300);
    expect(rx.hits).toHaveLength(3);
    const warnings = hook.logs.lines.filter((l) => l.level === "warn");
    expect(warnings.map((l) => l.message)).toEqual(["webhook delivery given up"]);
    expect(warnings[0]?.fields).toMatchObject({ renderId: "r-down", attempt: 3, reason: "HTTP 503", permanent: false });
  });

  it("a permanent failure (no secret for the project) is given up at once: no POST, failed", async () => {
    const rx = await receiver(cleanup);
    const prefix = freshPrefix();
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { schedule: [50, 50] });
    await hook.notify(succeeded("r-nosecret", { projectId: "someone-else", webhookUrl: rx.url() }));
    await waitFor(async () => (await hook.state("r-nosecret")) === "failed");
    await sleep(300);
    expect(rx.hits).toHaveLength(0); // the secret is asked before anything is sent
    const job = await storedJob(prefix, "r-nosecret");
    expect(job?.attemptsMade).toBe(1); // UnrecoverableError: none of the schedule's retries
    expect(job?.failedReason).toMatch(/no webhook secret/);
    const given = hook.logs.lines.find((l) => l.message === "webhook delivery given up");
    expect(given?.fields).toMatchObject({ attempt: 1, permanent: true });
    expect(String(given?.fields?.reason)).toMatch(/no webhook secret/);
  });

  it("render ids BullMQ would refuse as job ids (integers, ':') are delivered once too", async () => {
    const rx = await receiver(cleanup);
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix: freshPrefix() }, rx.port);
    for (const id of ["12345", "a:b:c", "../x"]) {
      const event = succeeded(id, { projectId: "p1", webhookUrl: rx.url() });
      await hook.notify(event);
      await hook.notify(event);
    }
    for (const id of ["12345", "a:b:c", "../x"]) await waitFor(async () => (await hook.state(id)) === "delivered");
    await sleep(200);
    expect(rx.hits.map((h) => JSON.parse(h.body).renderId).sort()).toEqual(["../x", "12345", "a:b:c"]);
  });

  it("deliver: false only enqueues; a delivering instance elsewhere sends it", async () => {
    const rx = await receiver(cleanup);
    const prefix = freshPrefix();
    const api = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { deliver: false });
    expect(api.delivers).toBe(false);
    await api.notify(succeeded("r-api", { projectId: "p1", webhookUrl: rx.url() }));
    await sleep(500);
    expect(rx.hits).toHaveLength(0);
    expect(await api.state("r-api")).toBe("pending");

    const worker = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port);
    await worker.start();
    await waitFor(async () => (await api.state("r-api")) === "delivered");
    expect(rx.hits).toHaveLength(1);
    expect(rx.hits[0]?.verified).toBe(true);
  });

  it("close() lets a post in flight finish and records its outcome", async () => {
    const rx = await receiver(cleanup, () => (res) => setTimeout(() => res.writeHead(200).end(), 300));
    const prefix = freshPrefix();
    const hook = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port);
    await hook.notify(succeeded("r-inflight", { projectId: "p1", webhookUrl: rx.url() }));
    await waitFor(() => rx.hits.length === 1);
    await hook.close();
    const reader = bullmqNotifier(cleanup, { url: redis.url, prefix }, rx.port, { deliver: false });
    expect(await reader.state("r-inflight")).toBe("delivered");
  });
});
