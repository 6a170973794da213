import { createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, PROJECT_A, PROJECT_B, startTestServer, TEST_MODE, type TestServer } from "./helpers.js";

// Issue 14, findings 4, 5 and 7: the per-project queue share under concurrency, no 500 once a
// render is queued, and what /ready and address refusals tell a caller without credentials.
// Runs in both modes (`RENDERKIT_TEST_MODE=redis`: Redis reservation, BullMQ queue, S3).

const A = PROJECT_A.secretKey;
const B = PROJECT_B.secretKey;
/** The operator's credential: the metrics token of the server's config. */
const OPERATOR = "operator-token-0123456789abcdef";

/**
 * A loopback site whose answers wait until `open()`: renders of it stay running for as long as
 * the test needs, however slow the machine. `connections` counts every connection it accepted.
 */
async function gatedSite() {
  let opened = false;
  let connections = 0;
  const held: ServerResponse[] = [];
  const send = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/html" }).end("<p>gated</p>");
  const server = createServer((_req, res) => (opened ? send(res) : void held.push(res)));
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    open() {
      opened = true;
      for (const res of held.splice(0)) send(res);
    },
    shut() {
      opened = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let site: Awaited<ReturnType<typeof gatedSite>>;
let canary: Awaited<ReturnType<typeof gatedSite>>;
let server: TestServer;
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  site = await gatedSite();
  // Never allowed: any connection to it is a leak.
  canary = await gatedSite();
  // Two projects and a queue of 20: each project's share is 10.
  server = await startTestServer({
    concurrency: 1,
    maxQueued: 20,
    allowPrivateNetworks: [`127.0.0.1:${site.port}`],
    metrics: { token: OPERATOR },
  });
});
afterAll(async () => {
  site?.open();
  for (const close of closing.reverse()) await close();
  await server?.close();
  await Promise.all([site?.close(), canary?.close()]);
});

const asyncRender = (test: TestServer, key: string, tag: string) =>
  api(test.url, "/v1/render/async", { json: { url: `${site.url}/${tag}`, timeout: 100_000 }, key });

/** Waits until every render in `ids` has succeeded (the status endpoint says so). */
async function allSucceeded(test: TestServer, key: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    await expect
      .poll(async () => (await api(test.url, `/v1/render/${id}`, { key })).body.status, { timeout: 120_000, interval: 250 })
      .toBe("succeeded");
  }
}

describe(`the per-project queue share under concurrency (${TEST_MODE} mode)`, () => {
  it("30 parallel requests of one project get exactly its share; another project gets in; nothing leaks", async () => {
    const burst = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => asyncRender(server, A, `a${i}`).then((answer) => ({ project: "A", answer }))),
      ...Array.from({ length: 3 }, (_, i) => asyncRender(server, B, `b${i}`).then((answer) => ({ project: "B", answer }))),
    ]);
    const fromA = burst.filter((r) => r.project === "A").map((r) => r.answer);
    const fromB = burst.filter((r) => r.project === "B").map((r) => r.answer);
    expect(fromA.filter((a) => a.status === 201)).toHaveLength(10);
    const refused = fromA.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.error.code).toBe("RateLimitExceededError");
      expect(answer.body.error.message).toContain("at most 10");
      expect(answer.headers.get("retry-after")).toBe("5");
    }
    expect(fromB.map((a) => a.status)).toEqual([201, 201, 201]);

    // The renders end (none could before: the site held them), and give their places back.
    site.open();
    await allSucceeded(
      server,
      A,
      fromA.filter((a) => a.status === 201).map((a) => a.body.renderId),
    );
    await allSucceeded(
      server,
      B,
      fromB.map((a) => a.body.renderId),
    );
    // A second burst gets the whole share again: no place was lost.
    site.shut();
    const again = await Promise.all(Array.from({ length: 12 }, (_, i) => asyncRender(server, A, `again${i}`)));
    expect(again.filter((a) => a.status === 201)).toHaveLength(10);
    expect(again.filter((a) => a.status === 429)).toHaveLength(2);
    site.open();
    await allSucceeded(
      server,
      A,
      again.filter((a) => a.status === 201).map((a) => a.body.renderId),
    );
    expect(canary.connections()).toBe(0);
  }, 300_000);
});

/** 100 unknown option names of 20 characters: 2,000 characters, twice the header's length. */
const UNKNOWN = Array.from({ length: 100 }, (_, i) => `x_unknown_option_${String(i).padStart(3, "0")}`);
const unknownOptions = Object.fromEntries(UNKNOWN.map((name) => [name, 1]));

/** The header names some of the unknown options, in ASCII, and counts the rest. */
function expectBoundedHeader(value: string | null, names: readonly string[]): void {
  expect(value).toMatch(/^[\x20-\x7e]+$/);
  expect((value as string).length).toBeLessThanOrEqual(1_000);
  const parts = (value as string).split(", ");
  const tail = /^\.\.\. \(\+(\d+) more\)$/.exec(parts.at(-1) as string);
  expect(tail, value as string).not.toBeNull();
  const listed = parts.slice(0, -1);
  for (const name of listed) expect(names).toContain(name);
  expect(listed.length + Number(tail?.[1])).toBe(names.length);
}

describe("more unknown option names than X-Ignored-Options can carry", () => {
  /** Render ids the renderer queued while `call` ran. */
  async function queuedBy(call: () => Promise<string | undefined>): Promise<{ created: string[]; id?: string }> {
    const created: string[] = [];
    const off = server.running.renderer.on((event) => {
      if (event.type === "render.created") created.push(event.renderId);
    });
    try {
      return { created, id: await call() };
    } finally {
      off();
    }
  }

  it("async: 201 with the id of the one render queued, and an ASCII header of bounded length", async () => {
    let header: string | null = null;
    const { created, id } = await queuedBy(async () => {
      const answer = await api(server.url, "/v1/render/async", { json: { html: "<p>x</p>", ...unknownOptions }, key: A });
      expect(answer.status).toBe(201);
      header = answer.headers.get("x-ignored-options");
      return answer.body.renderId;
    });
    expect(created).toEqual([id]);
    expectBoundedHeader(header, UNKNOWN);
    const status = await api(server.url, `/v1/render/${id}`, { key: A });
    expect(status.status).toBe(200);
    expect(["created", "succeeded"]).toContain(status.body.status);
  });

  it("sync: 200 with the result, one render", async () => {
    let header: string | null = null;
    const { created, id } = await queuedBy(async () => {
      const answer = await api(server.url, "/v1/render/sync", { json: { html: "<p>x</p>", ...unknownOptions }, key: A });
      expect(answer.status).toBe(200);
      expect(answer.body.size).toBeGreaterThan(0);
      header = answer.headers.get("x-ignored-options");
      return answer.body.renderId;
    });
    expect(created).toEqual([id]);
    expectBoundedHeader(header, UNKNOWN);
    expect((await api(server.url, `/v1/render/${id}`, { key: A })).body.status).toBe("succeeded");
  });

  it("render link: 200 with the bytes, one render", async () => {
    const query = new URLSearchParams({ html: "<p>x</p>", ...unknownOptions }).toString();
    const token = createHmac("sha256", A).update(`png?${query}`).digest("hex");
    let header: string | null = null;
    const { created, id } = await queuedBy(async () => {
      const response = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${token}/png?${query}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      await response.arrayBuffer();
      header = response.headers.get("x-ignored-options");
      return response.headers.get("x-render-id") ?? undefined;
    });
    expect(created).toEqual([id]);
    expectBoundedHeader(header, UNKNOWN);
    expect((await api(server.url, `/v1/render/${id}`, { key: A })).body.status).toBe("succeeded");
  });

  it("a name with a lone surrogate is percent-encoded (as U+FFFD), never a 500 after queueing", async () => {
    const { created, id } = await queuedBy(async () => {
      const answer = await api(server.url, "/v1/render/async", { json: { html: "<p>x</p>", "\ud800odd": 1 }, key: A });
      expect(answer.status).toBe(201);
      expect(answer.headers.get("x-ignored-options")).toBe(encodeURIComponent("\ufffdodd"));
      return answer.body.renderId;
    });
    expect(created).toEqual([id]);
  });
});

describe("what a caller without credentials learns", () => {
  it("/ready answers only its status; the figures need the metrics token", async () => {
    const tries: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${A}` },
      { authorization: "Bearer wrong-token-0123456789" },
    ];
    for (const headers of tries) {
      const ready = await api(server.url, "/ready", { headers });
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: "ready" });
    }
    const full = await api(server.url, "/ready", { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ status: "ready", role: "all", queue: { waiting: expect.any(Number) } });
    expect(full.body.formats).toContain("png");
    expect(Object.keys(full.body.engines)).toEqual(expect.arrayContaining(["playwright", "puppeteer"]));
  });

  it("/ready when the queue is full: 503 with status and reason, no figures", async () => {
    const full = await startTestServer({
      concurrency: 1,
      maxQueued: 1,
      maxQueuedPerProject: 5,
      allowPrivateNetworks: [`127.0.0.1:${site.port}`],
      metrics: { token: OPERATOR },
    });
    closing.push(() => full.close());
    site.shut();
    const first = await asyncRender(full, A, "full1");
    expect(first.status).toBe(201);
    // Once the first runs (held by the site), the second waits and fills the queue.
    const operator = { authorization: `Bearer ${OPERATOR}` };
    await expect
      .poll(async () => (await api(full.url, "/ready", { headers: operator })).body.queue?.active, { timeout: 60_000 })
      .toBe(1);
    const second = await asyncRender(full, A, "full2");
    expect(second.status).toBe(201);
    const ready = await api(full.url, "/ready");
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(ready.body).toEqual({
      status: "unavailable",
      error: { message: "The render queue is full", code: "ServiceUnavailable" },
      requestId: expect.any(String),
    });
    site.open();
    await allSucceeded(full, A, [first.body.renderId, second.body.renderId]);
  }, 180_000);

  it("a name that resolves to a private address gets the answer of a name that does not resolve", async () => {
    const refusal = async (url: string) => {
      const answer = await api(server.url, "/v1/render/async", { json: { url }, key: A });
      expect(answer.status, url).toBe(400);
      return answer.body.error;
    };
    const internal = await refusal(`http://localhost:${canary.port}/`);
    const missing = await refusal("http://no-such-host.invalid/");
    expect(internal).toEqual({
      code: "URLDoesNotResolveError",
      message: "The host localhost does not resolve to a public address",
    });
    expect(missing).toEqual({
      code: "URLDoesNotResolveError",
      message: "The host no-such-host.invalid does not resolve to a public address",
    });
    // IP literals reveal nothing by being refused: they keep their own words.
    expect(await refusal(`http://127.0.0.1:${canary.port}/`)).toEqual({
      code: "InvalidURLError",
      message: `Refused to load 127.0.0.1:${canary.port}: 127.0.0.1 is not a public address`,
    });
    // A webhook address alike.
    const hook = async (url: string) =>
      (await api(server.url, "/v1/render/async", { json: { html: "<p>x</p>", webhook_url: url }, key: A })).body.error;
    const hookInternal = await hook(`http://localhost:${canary.port}/hook`);
    const hookMissing = await hook("http://no-such-host.invalid/hook");
    expect(hookInternal.code).toBe("InvalidOptions");
    expect(hookInternal.message.replace("localhost", "NAME")).toBe(hookMissing.message.replace("no-such-host.invalid", "NAME"));
    expect(canary.connections()).toBe(0);
  });
});
