import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { createServerLogger, prettyLine } from "../dist/observability/logging.js";
import { type RunningServer, startServer } from "../dist/serve.js";
import { api, listenLocal, PROJECT_A } from "./helpers.js";

// Values that must never reach the log, whatever the request carried them in.
const SECRETS = {
  authorization: "Bearer AUTHSECRET_7f3a9c",
  header: "HEADERSECRET_51be02",
  cookie: "COOKIESECRET_c0ffee",
  proxyPass: "PROXYPASS_9d8e7f",
  linkAuth: "LINKSECRET_a1b2c3",
  wrongKey: "sk_WRONGKEYSECRET_0123456789",
};

let lines: string[] = [];
let running: RunningServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
let dataDir: string;

const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const accessLine = (requestId: string | null) => entries().filter((e) => e.message === "request" && e.requestId === requestId);

beforeAll(async () => {
  site = await listenLocal(() => ({ body: `<body style="margin:0;background:rgb(0,255,0)"><h1>ok</h1></body>` }));
  dataDir = mkdtempSync(join(tmpdir(), "renderkit-logging-"));
  const config = await loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: "127.0.0.1",
      dataDir,
      allowPrivateNetworks: ["127.0.0.1"],
      drainSeconds: 5,
      projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 }, allowTokenless: true }],
    } as Partial<ServerConfig>,
  });
  const logger = createServerLogger({
    level: "debug",
    format: "json",
    destination: { write: (l: string) => lines.push(...l.split("\n").filter(Boolean)) },
  });
  running = await startServer(config, { logger });
}, 120_000);

afterAll(async () => {
  await running?.close();
  await site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("server logs", () => {
  it("writes one access line per request and never a key, secret option or query", async () => {
    lines = [];
    const render = await api(running.url, "/v1/render/sync", {
      key: PROJECT_A.secretKey,
      json: {
        url: `${site.url}/page?x=1`,
        width: 200,
        height: 100,
        authorization: SECRETS.authorization,
        headers: [`X-Secret=${SECRETS.header}`],
        cookies: [`sid=${SECRETS.cookie}`],
      },
    });
    expect(render.status).toBe(200);
    // The options were applied: the target saw them (so the secrets did pass through the server).
    const seen = site.requests.find((r) => r.url === "/page?x=1");
    expect(seen?.headers.authorization).toBe(SECRETS.authorization);
    expect(seen?.headers["x-secret"]).toBe(SECRETS.header);
    expect(seen?.headers.cookie).toContain(SECRETS.cookie);
    const file = await fetch(render.body.renderUrl);
    const { data } = await sharp(Buffer.from(await file.arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([0, 255, 0]);

    // A proxy with credentials: the answer may be a success or a refusal; the password stays out of the log.
    const proxied = await api(running.url, "/v1/render/sync", {
      key: PROJECT_A.secretKey,
      json: { url: `${site.url}/proxied`, width: 200, height: 100, proxy: `user:${SECRETS.proxyPass}@127.0.0.1:9` },
    });
    const link = await fetch(
      `${running.url}/v1/${PROJECT_A.publishableKey}/png?url=${encodeURIComponent(`${site.url}/link`)}&width=120&height=100&authorization=${SECRETS.linkAuth}`,
    );
    const linkBody = Buffer.from(await link.arrayBuffer());
    expect(link.status, linkBody.toString()).toBe(200);
    const refused = await api(running.url, "/v1/render/sync", { key: SECRETS.wrongKey, json: { url: site.url } });
    expect(refused.status).toBe(401);
    const health = await api(running.url, "/health");
    expect(health.status).toBe(200);

    const all = lines.join("\n");
    for (const secret of [...Object.values(SECRETS), PROJECT_A.secretKey, PROJECT_A.webhookSecret]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toContain("x=1"); // the target's query
    expect(all).not.toContain("width=120"); // the render link's query

    const expected: [typeof render, string, string, number, string | undefined][] = [
      [render, "POST", "/v1/render/sync", 200, "alpha"],
      [proxied, "POST", "/v1/render/sync", proxied.status, "alpha"],
      [refused, "POST", "/v1/render/sync", 401, undefined],
      [health, "GET", "/health", 200, undefined],
    ];
    for (const [answer, method, route, status, projectId] of expected) {
      const found = accessLine(answer.headers.get("x-request-id"));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ level: expect.stringMatching(/info|warn/), method, route, status });
      expect(found[0]?.projectId).toBe(projectId);
      expect(typeof found[0]?.durationMs).toBe("number");
      expect(Number.isNaN(Date.parse(String(found[0]?.time)))).toBe(false);
    }
    const linkLine = accessLine(link.headers.get("x-request-id"));
    expect(linkLine).toHaveLength(1);
    expect(linkLine[0]).toMatchObject({ method: "GET", route: "/v1/:key/:format", status: 200, projectId: "alpha" });
    expect(render.body.renderId ?? render.headers.get("x-render-id")).toBeTruthy();
    const fileLine = accessLine(file.headers.get("x-request-id"));
    expect(fileLine).toHaveLength(1);
    expect(fileLine[0]).toMatchObject({ method: "GET", route: "/renders/:key", status: 200 });
    // Exactly one access line per request made (two renders, their file, a link, a refusal, /health).
    expect(entries().filter((e) => e.message === "request")).toHaveLength(6);
    if (process.env.RENDERKIT_SHOW_LOG) console.log(all);
  }, 180_000);

  it("redacts secret fields by name and URL credentials anywhere, and honours the level", () => {
    const out: string[] = [];
    const logger = createServerLogger({ level: "info", format: "json", destination: { write: (l: string) => out.push(l) } });
    logger.debug("not written", { renderId: "r1" });
    logger.info("render failed via http://bob:HUNTER2@proxy.example:8080/x", {
      renderId: "r2",
      options: {
        proxy: "bob:HUNTER2@p:1",
        cookies: ["a=HUNTER2"],
        width: 300,
        nested: { authorization: "HUNTER2" },
        // The options the catalogue marks secret, in either spelling (tenancy finding 5).
        s3PresignedUrl: "https://up.example/r.png?X-Amz-Signature=HUNTER2",
        s3_presigned_url_html: "https://up.example/r.html?X-Amz-Signature=HUNTER2",
      },
      headers: { authorization: "Bearer HUNTER2" },
      error: new Error("connect to https://u:HUNTER2@s3.example failed"),
    });
    expect(out).toHaveLength(1);
    expect(out[0]).not.toContain("HUNTER2");
    const entry = JSON.parse(out[0] as string);
    expect(entry).toMatchObject({
      level: "info",
      renderId: "r2",
      options: { width: 300, proxy: "[redacted]", s3PresignedUrl: "[redacted]", s3_presigned_url_html: "[redacted]" },
    });
    expect(entry.message).toBe("render failed via http://[redacted]@proxy.example:8080/x");
    expect(entry.error.message).toBe("connect to https://[redacted]@s3.example failed");
  });

  it("formats a JSON line for a terminal", () => {
    const text = prettyLine(
      `${JSON.stringify({ time: "2026-01-02T03:04:05.678Z", level: "warn", message: "hi", renderId: "r1" })}\n`,
    );
    expect(text).toBe("03:04:05.678 WARN  hi renderId=r1\n");
  });
});
