import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
const A = PROJECT_A.secretKey;
/** /ready shows engine figures only with the operator's (metrics) token. */
const OPERATOR = "operator-token-0123456789abcdef";
const operator = { headers: { authorization: `Bearer ${OPERATOR}` } };

beforeAll(async () => {
  server = await startTestServer({ engine: "puppeteer", metrics: { token: OPERATOR } });
});
afterAll(async () => {
  await server?.close();
});

describe("engines in the server", () => {
  it("renders with the configured default engine, and with the engine a request names", async () => {
    expect((await api(server.url, "/v1/render/sync", { json: { html: "<p>default</p>" }, key: A })).status).toBe(200);
    // Render links use the configured default too.
    const query = `html=${encodeURIComponent("<p>link</p>")}`;
    const token = createHmac("sha256", A).update(`png?${query}`).digest("hex");
    expect((await api(server.url, `/v1/${PROJECT_A.publishableKey}/${token}/png?${query}`)).status).toBe(200);
    let ready = await api(server.url, "/ready", operator);
    expect(ready.body.engines.puppeteer.launches).toBe(1);
    expect(ready.body.engines.playwright.launches).toBe(0);
    expect(
      (await api(server.url, "/v1/render/sync", { json: { html: "<p>named</p>", engine: "playwright" }, key: A })).status,
    ).toBe(200);
    ready = await api(server.url, "/ready", operator);
    expect(ready.body.engines.playwright.launches).toBe(1);
  });

  it("refuses an engine that is not installed with 400 InvalidOptions naming it", async () => {
    const answer = await api(server.url, "/v1/render/sync", { json: { html: "<p>x</p>", engine: "webkit" }, key: A });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("InvalidOptions");
    expect(answer.body.error.message).toContain("webkit");
  });
});

describe("warm-up", () => {
  it("launches the default engine's browser as the server starts, before any render", async () => {
    const warm = await startTestServer({ engine: "puppeteer", warmup: true, metrics: { token: OPERATOR } });
    try {
      await expect
        .poll(async () => (await api(warm.url, "/ready", operator)).body.engines?.puppeteer?.browsers, { timeout: 30_000 })
        .toBe(1);
      const ready = await api(warm.url, "/ready", operator);
      expect(ready.body.engines.playwright.launches).toBe(0);
      const first = await api(warm.url, "/v1/render/sync", { json: { html: "<p>first</p>" }, key: A });
      // The error, if any, in the failure message.
      expect({ status: first.status, error: first.body?.error }).toEqual({ status: 200, error: undefined });
      expect((await api(warm.url, "/ready", operator)).body.engines.puppeteer.launches).toBe(1);
    } finally {
      await warm.close();
    }
  });
});
