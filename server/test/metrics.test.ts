import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../dist/config/index.js";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

const A = PROJECT_A.secretKey;
const TOKEN = "metrics_token_0123456789abcdef";

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && line.split(" ")[0] !== name) continue;
    const inside = line.slice(line.indexOf("{") + 1, line.lastIndexOf("}")).split(",");
    if (wanted.every((pair) => inside.includes(pair)) && inside.length === wanted.length) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

let site: Awaited<ReturnType<typeof listenLocal>>;
beforeAll(async () => {
  site = await listenLocal(() => ({ body: `<body style="margin:0;background:rgb(255,0,0)"></body>` }));
});
afterAll(async () => {
  await site?.close();
});

describe("/metrics disabled (the default)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers 404 with the API's error body", async () => {
    const answer = await api(server.url, "/metrics");
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("NotFound");
  });
});

describe("/metrics with a token", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ metrics: { enabled: true, token: TOKEN } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers 401 without the token or with another one, 200 with it", async () => {
    const none = await api(server.url, "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(none.body.error.code).toBe("Unauthorized");
    expect((await api(server.url, "/metrics", { key: `${TOKEN}x` })).status).toBe(401);
    expect((await api(server.url, "/metrics", { key: A })).status).toBe(401);
    const ok = await api(server.url, "/metrics", { key: TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).toContain("# TYPE renderkit_renders_total counter");
  });

  it("answers 405 to other methods", async () => {
    const answer = await api(server.url, "/metrics", { method: "POST", key: TOKEN });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("/metrics open (enabled, no token)", () => {
  let server: TestServer;
  let before: string;
  let after: string;
  let renderTime: number;
  beforeAll(async () => {
    server = await startTestServer({ metrics: { enabled: true } });
    before = (await api(server.url, "/metrics")).text;
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/red`, width: 200, height: 100 },
      key: A,
    });
    expect(answer.status).toBe(200);
    renderTime = answer.body.renderTime;
    const image = await sharp(Buffer.from(await (await fetch(answer.body.renderUrl)).arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([image.info.width, image.info.height, image.data[0], image.data[1], image.data[2]]).toEqual([200, 100, 255, 0, 0]);
    await api(server.url, "/v1/render/re_nosuchrender_123", { key: A });
    // Nothing listens on port 1: the render fails (jpg, puppeteer: labels of its own).
    const failed = await api(server.url, "/v1/render/sync", {
      json: { url: "http://127.0.0.1:1/", format: "jpg", engine: "puppeteer" },
      key: A,
    });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    after = (await api(server.url, "/metrics")).text;
  }, 180_000);
  afterAll(async () => {
    await server?.close();
  });

  it("counts the png render by format, engine and outcome", () => {
    const labels = { format: "png", engine: "playwright", outcome: "succeeded" };
    expect(sample(before, "renderkit_renders_total", labels)).toBeUndefined();
    expect(sample(after, "renderkit_renders_total", labels)).toBe(1);
    expect(sample(after, "renderkit_renders_total", { ...labels, outcome: "failed" })).toBeUndefined();
    const failed = { format: "jpg", engine: "puppeteer", outcome: "failed" };
    expect(sample(after, "renderkit_renders_total", failed)).toBe(1);
    expect(sample(after, "renderkit_render_duration_seconds_count", failed)).toBe(1);
  });

  it("puts its duration in the histogram buckets", () => {
    const labels = { format: "png", engine: "playwright", outcome: "succeeded" };
    expect(sample(after, "renderkit_render_duration_seconds_count", labels)).toBe(1);
    expect(sample(after, "renderkit_render_duration_seconds_sum", labels)).toBeCloseTo(renderTime / 1000, 3);
    expect(sample(after, "renderkit_render_duration_seconds_bucket", { le: "+Inf", ...labels })).toBe(1);
    // Each bucket holds it exactly when its bound is at least the render time.
    for (const le of [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]) {
      const bucket = sample(after, "renderkit_render_duration_seconds_bucket", { le: String(le), ...labels });
      expect(bucket, `le=${le}`).toBe(renderTime / 1000 <= le ? 1 : 0);
    }
    expect(sample(after, "renderkit_queue_duration_seconds_count", { format: "png", engine: "playwright" })).toBe(1);
  });

  it("shows the queue depth and the browsers launched", async () => {
    // Read at scrape time: the last job may still be finishing when its answer arrives.
    expect(sample(after, "renderkit_queue_renders", { state: "waiting" })).toBe(0);
    await expect
      .poll(async () => sample((await api(server.url, "/metrics")).text, "renderkit_queue_renders", { state: "active" }), {
        timeout: 30_000,
      })
      .toBe(0);
    expect(sample(after, "renderkit_browser_launches_total", { engine: "playwright" })).toBe(1);
    expect(sample(after, "renderkit_browser_launches_total", { engine: "puppeteer" })).toBe(1);
    expect(sample(after, "renderkit_browsers", { engine: "playwright" })).toBe(1);
    expect(sample(after, "renderkit_browsers_retired_total", { engine: "playwright" })).toBe(0);
  });

  it("counts HTTP requests by route pattern and status, never by raw path", () => {
    expect(sample(after, "renderkit_http_requests_total", { method: "POST", route: "/v1/render/sync", status: "200" })).toBe(1);
    expect(sample(after, "renderkit_http_requests_total", { method: "GET", route: "/v1/render/:renderId", status: "404" })).toBe(
      1,
    );
    expect(sample(after, "renderkit_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBe(1);
    expect(after).not.toContain("re_nosuchrender_123");
  });
});

describe("webhook delivery metrics", () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof listenLocal>>;
  beforeAll(async () => {
    // `/ok` takes the webhook; `/broken` answers 500 (a failed attempt, retried later).
    receiver = await listenLocal((req) => (req.url === "/ok" ? { status: 200 } : { status: 500 }));
    server = await startTestServer({ metrics: { enabled: true } });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it("counts delivered and failed attempts", async () => {
    const scrape = async () => (await api(server.url, "/metrics")).text;
    expect(sample(await scrape(), "renderkit_webhook_attempts_total", { outcome: "delivered" })).toBeUndefined();
    for (const path of ["/ok", "/broken"]) {
      const answer = await api(server.url, "/v1/render/async", {
        json: { url: `${site.url}/red`, width: 200, height: 100, webhook_url: `${receiver.url}${path}` },
        key: A,
      });
      expect(answer.status, answer.text).toBe(201);
    }
    // Wait for both first attempts to reach the receiver, then for the counters to show them.
    let text = "";
    for (let i = 0; i < 600; i++) {
      text = await scrape();
      const delivered = sample(text, "renderkit_webhook_attempts_total", { outcome: "delivered" }) ?? 0;
      const failed = sample(text, "renderkit_webhook_attempts_total", { outcome: "failed" }) ?? 0;
      if (delivered >= 1 && failed >= 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(sample(text, "renderkit_webhook_attempts_total", { outcome: "delivered" })).toBe(1);
    expect(sample(text, "renderkit_webhook_attempts_total", { outcome: "failed" })).toBeGreaterThanOrEqual(1);
    expect(receiver.requests.filter((r) => r.url === "/ok")).toHaveLength(1);
  }, 180_000);
});

describe("metrics configuration", () => {
  it("is off by default and read from RENDERKIT_METRICS_ENABLED and RENDERKIT_METRICS_TOKEN", async () => {
    expect((await loadConfig({ env: {} })).metrics).toEqual({ enabled: false });
    const config = await loadConfig({ env: { RENDERKIT_METRICS_ENABLED: "true", RENDERKIT_METRICS_TOKEN: TOKEN } });
    expect(config.metrics.enabled).toBe(true);
    expect(config.metrics.token).toBe(TOKEN);
    // A secret: kept out of logs and serialised configs.
    expect(JSON.stringify(config)).not.toContain(TOKEN);
  });

  it("refuses a short token without repeating it, and unknown keys", async () => {
    const short = loadConfig({ env: { RENDERKIT_METRICS_TOKEN: "short-secret" } });
    await expect(short).rejects.toThrow(/metrics\.token must be 16 to 512 printable characters.*RENDERKIT_METRICS_TOKEN/);
    await expect(short).rejects.not.toThrow(/short-secret/);
    await expect(loadConfig({ env: {}, overrides: { metrics: { enabled: true, tokn: "x" } } as never })).rejects.toThrow(
      /metrics\.tokn is not a known key/,
    );
  });
});
