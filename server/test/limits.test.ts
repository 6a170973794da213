import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;

beforeAll(async () => {
  site = await listenLocal((req) =>
    req.url?.startsWith("/slow") ? { body: "<p>slow</p>", delayMs: 4000 } : { body: "<p>fast</p>" },
  );
  server = await startTestServer({ concurrency: 1, maxQueued: 1 });
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
  });
});
