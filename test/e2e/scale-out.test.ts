import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Node, startApi, startWorkerNode, writeConfig } from "../helpers/cluster.js";
import { decode } from "../helpers/image.js";
import { freePort, startRedis, type TestRedis } from "../helpers/redis.js";
import { startS3, type TestS3 } from "../helpers/s3.js";

/**
 * Scale-out on real parts (issue 10): one API process and two worker processes from the CLI,
 * sharing a real redis-server and an S3-compatible server (s3rver), all on loopback.
 */

const PROJECT = {
  id: "alpha",
  secretKey: "sk_test_alpha_0123456789abcdef",
  publishableKey: "pk_test_alpha",
  webhookSecret: "whsec_alpha_0123456789abcdef",
  rateLimit: { requests: 100_000, perSeconds: 60 },
};
const LIMITED = {
  id: "limited",
  secretKey: "sk_test_limited_0123456789abcdef",
  publishableKey: "pk_test_limited",
  webhookSecret: "whsec_limited_0123456789abcdef",
  rateLimit: { requests: 7, perSeconds: 3600 },
};

let dir: string;
let redis: TestRedis;
let s3: TestS3;
let site: Server;
let siteUrl: string;
let hookServer: Server;
let hookUrl: string;
/** Webhooks received, in order: render id, event and whether the signature verified. */
const hooks: { renderId: string; event: string; ok: boolean }[] = [];
const nodes: Node[] = [];
let apiPort: number;
let apiUrl: string;
let configFile: string;

async function listen(handler: (req: IncomingMessage, body: string) => { status: number; body: string; delayMs?: number }) {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const answer = handler(req, body);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "text/html" });
        res.end(answer.body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function config(port: number, baseUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    host: "127.0.0.1",
    port,
    baseUrl,
    dataDir: join(dir, `data-${port}`),
    allowPrivateNetworks: ["127.0.0.1"],
    concurrency: 2,
    maxQueued: 1_000,
    drainSeconds: 5,
    redis: { url: redis.url, prefix: "scale", lockDurationMs: 4_000, stalledIntervalMs: 1_500 },
    storage: { kind: "s3", ...s3.bucket("renders") },
    projects: [PROJECT, LIMITED],
    webhooks: { timeoutMs: 5_000, scheduleMs: [300, 600, 1_200, 2_400] },
    ...extra,
  };
}

async function call(base: string, path: string, body?: unknown, key = PROJECT.secretKey) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read answer bodies freely
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: json, text };
}

let apiB: Promise<string> | undefined;
/** A second API process (node B) on its own port, same Redis, same storage. */
function secondApi(): Promise<string> {
  apiB ??= (async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    nodes.push(await startApi("api-b", writeConfig(join(dir, "b.json"), config(port, url)), url));
    return url;
  })();
  return apiB;
}

async function submit(body: Record<string, unknown>): Promise<string> {
  const created = await call(apiUrl, "/v1/render/async", { ...body, webhook_url: `${hookUrl}/hook` });
  expect(created.status, created.text).toBe(201);
  return created.body.renderId as string;
}

/** Polls the status of `ids` until all ended; returns every status seen per render. */
async function untilEnded(ids: string[], timeoutMs: number, base = () => apiUrl): Promise<Map<string, string[]>> {
  const seen = new Map<string, string[]>(ids.map((id) => [id, []]));
  const open = new Set(ids);
  const end = Date.now() + timeoutMs;
  while (open.size > 0 && Date.now() < end) {
    for (const id of [...open]) {
      const answer = await call(base(), `/v1/render/${id}`).catch(() => undefined);
      const status = answer?.body?.status as string | undefined;
      if (!status) continue;
      const list = seen.get(id) as string[];
      if (list.at(-1) !== status) list.push(status);
      if (status === "succeeded" || status === "failed") open.delete(id);
    }
    if (open.size > 0) await new Promise((r) => setTimeout(r, 150));
  }
  return seen;
}

/** Waits until every render of `ids` has a webhook, then a little longer for duplicates. */
async function hooksFor(ids: string[], timeoutMs = 60_000): Promise<void> {
  await expect
    .poll(() => ids.filter((id) => !hooks.some((h) => h.renderId === id)).length, { timeout: timeoutMs, interval: 200 })
    .toBe(0);
  await new Promise((r) => setTimeout(r, 1_500));
  for (const id of ids) {
    const got = hooks.filter((h) => h.renderId === id);
    expect(got, `webhooks of ${id}`).toHaveLength(1);
    expect(got[0]?.ok).toBe(true);
    expect(got[0]?.event).toBe("render.succeeded");
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "renderkit-scale-"));
  [redis, s3] = await Promise.all([startRedis(), startS3(["renders"])]);
  ({ server: site, url: siteUrl } = await listen((req) => {
    const slow = req.url?.startsWith("/slow");
    return { status: 200, body: `<h1 style="color:#c00">${req.url}</h1>`, delayMs: slow ? 2_500 : 0 };
  }));
  ({ server: hookServer, url: hookUrl } = await listen((req, body) => {
    const parsed = JSON.parse(body) as { renderId: string; event: string };
    const ok = verifyWebhookSignature(String(req.headers["x-service-signature"]), body, PROJECT.webhookSecret);
    hooks.push({ renderId: parsed.renderId, event: parsed.event, ok });
    return { status: 200, body: "" };
  }));
  apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  configFile = writeConfig(join(dir, "cluster.json"), config(apiPort, apiUrl));
  const [api, w1, w2] = await Promise.all([
    startApi("api", configFile, apiUrl),
    startWorkerNode("worker-1", writeConfig(join(dir, "w1.json"), config(apiPort, apiUrl, { dataDir: join(dir, "w1") }))),
    startWorkerNode("worker-2", writeConfig(join(dir, "w2.json"), config(apiPort, apiUrl, { dataDir: join(dir, "w2") }))),
  ]);
  nodes.push(api, w1, w2);
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.kill().catch(() => undefined)));
  await new Promise<void>((r) => site?.close(() => r()));
  hookServer?.closeAllConnections();
  await new Promise<void>((r) => hookServer?.close(() => r()));
  await Promise.all([redis?.stop(), s3?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe("API and worker processes on Redis and S3", () => {
  it("200 async renders with webhooks all succeed, one webhook each, files served from S3 through renderUrl", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      ids.push(
        await submit({ html: `<body style="margin:0;background:#0a0"><h1>render ${i}</h1></body>`, width: 320, height: 200 }),
      );
    }
    const seen = await untilEnded(ids, 600_000);
    const last = ids.map((id) => seen.get(id)?.at(-1));
    expect(last.filter((s) => s !== "succeeded")).toEqual([]);
    await hooksFor(ids);
    // Every file is readable at its renderUrl: the API answers 302 to a fresh presigned S3 address.
    for (const id of ids) {
      const status = await call(apiUrl, `/v1/render/${id}`);
      expect(status.body.renderUrl).toBe(`${apiUrl}/renders/${id}.png`);
      const direct = await fetch(status.body.renderUrl, { redirect: "manual" });
      expect(direct.status).toBe(302);
      expect(direct.headers.get("location")).toMatch(new RegExp(`^${s3.endpoint}/renders/${id}\\.png\\?`));
      await direct.body?.cancel();
      const file = await fetch(status.body.renderUrl);
      expect(file.status).toBe(200);
      const image = await decode(new Uint8Array(await file.arrayBuffer()));
      expect([image.width, image.height]).toEqual([320, 200]);
      expect(image.at(5, 190)).toEqual([0, 170, 0, 255]);
      expect(status.body.size).toBe(Number(file.headers.get("content-length")));
    }
  }, 900_000);

  it("kill -9 of a worker mid-render: its renders go retrying, then succeed on the other worker; one webhook each", async () => {
    const [, w1] = nodes as [Node, Node, Node];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await submit({ url: `${siteUrl}/slow-kill-${i}-${randomUUID()}` }));
    // Both workers hold renders once four pages are being loaded at once.
    const watching = untilEnded(ids, 240_000);
    await new Promise((r) => setTimeout(r, 1_200));
    await w1.kill();
    const seen = await watching;
    expect(ids.map((id) => seen.get(id)?.at(-1))).toEqual(ids.map(() => "succeeded"));
    const retried = ids.filter((id) => seen.get(id)?.includes("retrying"));
    expect(retried.length).toBeGreaterThanOrEqual(1);
    for (const id of ids) expect(seen.get(id)).not.toContain("failed");
    await hooksFor(ids);
    nodes[1] = await startWorkerNode(
      "worker-1b",
      writeConfig(join(dir, "w1b.json"), config(apiPort, apiUrl, { dataDir: join(dir, "w1b") })),
    );
  }, 300_000);

  it("kill -9 of the API process and a restart lose nothing", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await submit({ html: `<h1>api restart ${i}</h1>`, width: 320, height: 200 }));
    await nodes[0]?.kill();
    nodes[0] = await startApi("api-again", configFile, apiUrl);
    const seen = await untilEnded(ids, 240_000);
    expect(ids.map((id) => seen.get(id)?.at(-1))).toEqual(ids.map(() => "succeeded"));
    expect([...seen.values()].flat()).not.toContain("not-found");
    await hooksFor(ids);
  }, 300_000);

  it("a sync request on API node A redirects after 1 s; the redirect followed on API node B gets the result", async () => {
    const urlB = await secondApi();
    const first = await call(apiUrl, "/v1/render/sync", { url: `${siteUrl}/slow-sync`, redirect_after: 1 });
    expect(first.status).toBe(307);
    const location = first.headers.get("location") as string;
    expect(location).toMatch(new RegExp(`^${apiUrl}/v1/render/sync/[0-9a-f-]+_s$`));
    expect(first.body.redirectUrl).toBe(location);
    // Followed on node B: same path, other process.
    let answer = await call(urlB, new URL(location).pathname);
    for (let i = 0; i < 5 && answer.status === 307; i++) answer = await call(urlB, new URL(location).pathname);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.renderUrl).toMatch(/\/renders\/[0-9a-f-]+_s\.png$/);
    expect(answer.body.size).toBeGreaterThan(0);
  }, 120_000);

  it("the rate limit is shared: N+1 requests split over two API nodes get exactly one 429", async () => {
    const urlB = await secondApi();
    const statuses: number[] = [];
    // Counted before the options are read: empty bodies are cheap 400s that still use the limit.
    for (let i = 0; i <= LIMITED.rateLimit.requests; i++) {
      const answer = await call(i % 2 === 0 ? apiUrl : urlB, "/v1/render/async", {}, LIMITED.secretKey);
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.body.error.code).toBe("RateLimitExceededError");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 400)).toBe(true);
  });
});
