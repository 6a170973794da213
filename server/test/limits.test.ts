import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;

beforeAll(async () => {
  site = await listenLocal((req) =>
    req.url?.startsWith("/slow") ? { body: "<p>slow</p>", delayMs: 4000 } : { body: "<p>fast</p>" },
  );
  // The per-project share is lifted here: this file's first check is about the whole queue.
  server = await startTestServer({ concurrency: 1, maxQueued: 1, maxQueuedPerProject: 10 });
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

describe("overload", () => {
  it("answers 503 ServiceUnavailable with Retry-After when the queue is full", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(await api(server.url, "/v1/render/async", { json: { url: `${site.url}/slow?${i}` }, key: A }));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 2)).toEqual([201, 201]);
    const refused = answers.find((a) => a.status === 503);
    expect(refused?.body.error.code).toBe("ServiceUnavailable");
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Not ready while full: a load balancer sends the next request elsewhere.
    const ready = await api(server.url, "/ready");
    expect(ready.status).toBe(503);
    expect(ready.body.error).toEqual({ message: "The render queue is full", code: "ServiceUnavailable" });
  });

  it("lets one project hold at most its share of the queue (half of it), so others still get in", async () => {
    const shared = await startTestServer({ concurrency: 1, maxQueued: 4 });
    try {
      const submit = (key: string, i: number) =>
        api(shared.url, "/v1/render/async", { json: { url: `${site.url}/slow?share-${key.slice(8, 12)}-${i}` }, key });
      expect((await submit(A, 1)).status).toBe(201);
      expect((await submit(A, 2)).status).toBe(201);
      const third = await submit(A, 3);
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe("RateLimitExceededError");
      expect(third.body.error.message).toContain("at most 2");
      expect(third.headers.get("retry-after")).toBe("5");
      expect((await submit(PROJECT_B.secretKey, 1)).status).toBe(201);
    } finally {
      await shared.close();
    }
  });
});
