import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../test/helpers/redis.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { type RunningServer, startServer } from "../dist/serve.js";
import { api, listenLocal, PROJECT_A } from "./helpers.js";

/**
 * Redis goes away under a running server (redis mode): requests that need it answer 503 at
 * once with Retry-After instead of hanging, the process stays up, and it works again when
 * Redis is back, without a restart.
 */
let redis: TestRedis;
let server: RunningServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
let dir: string;
const key = PROJECT_A.secretKey;

async function render(): Promise<{ status: number; body: { status?: string; error?: { code: string } } }> {
  let answer = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/page`, width: 320, height: 200 }, key });
  for (let i = 0; i < 10 && answer.status === 307; i++) {
    answer = await api(server.url, new URL(answer.headers.get("location") as string).pathname, { key });
  }
  return answer;
}

beforeAll(async () => {
  redis = await startRedis();
  site = await listenLocal(() => ({ body: "<h1>outage</h1>" }));
  dir = mkdtempSync(join(tmpdir(), "renderkit-outage-"));
  const config = await loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: "127.0.0.1",
      dataDir: dir,
      allowPrivateNetworks: ["127.0.0.1"],
      drainSeconds: 2,
      projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } }],
      redis: { url: redis.url, prefix: "outage", lockDurationMs: 4_000, stalledIntervalMs: 2_000 },
    } as Partial<ServerConfig>,
  });
  server = await startServer(config, { logger: new ConsoleLogger("silent") });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await site?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("Redis outage", () => {
  it("answers 503 with Retry-After while Redis is down, stays up, and renders again once it is back", async () => {
    expect((await render()).status).toBe(200);
    const before = await api(server.url, "/v1/render/async", { json: { url: `${site.url}/before` }, key });
    expect(before.status).toBe(201);

    await redis.stop();
    const refused = await api(server.url, "/v1/render/async", { json: { url: `${site.url}/down` }, key });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("ServiceUnavailable");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const lookup = await api(server.url, `/v1/render/${before.body.renderId}`, { key });
    expect(lookup.status).toBe(503);
    expect(lookup.body.error.code).toBe("ServiceUnavailable");
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(503);

    await redis.restart();
    // The connections come back by themselves; the data of the old server is gone (no persistence).
    await expect.poll(async () => (await fetch(`${server.url}/ready`)).status, { timeout: 30_000, interval: 250 }).toBe(200);
    await expect.poll(async () => (await render()).status, { timeout: 60_000, interval: 500 }).toBe(200);
  }, 120_000);
});
