import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { afterAll } from "vitest";
import { startRedis, type TestRedis } from "../../test/helpers/redis.js";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { type RunningServer, startServer } from "../dist/serve.js";

export const PROJECT_A = {
  id: "alpha",
  secretKey: "sk_test_alpha_0123456789abcdef",
  publishableKey: "pk_test_alpha",
  webhookSecret: "whsec_alpha_0123456789abcdef",
};
export const PROJECT_B = {
  id: "beta",
  secretKey: "sk_test_beta_0123456789abcdefgh",
  publishableKey: "pk_test_beta",
  webhookSecret: "whsec_beta_0123456789abcdefgh",
};

/** A loopback HTTP server answering with `handler`, recording requests. */
export async function listenLocal(
  handler: (req: IncomingMessage, body: string) => { status?: number; type?: string; body?: string; delayMs?: number },
): Promise<{
  url: string;
  server: Server;
  requests: { url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}> {
  const requests: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      requests.push({ url: req.url ?? "", headers: req.headers, body });
      const answer = handler(req, body);
      const send = () => {
        res.writeHead(answer.status ?? 200, { "content-type": answer.type ?? "text/html" });
        res.end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface TestServer {
  running: RunningServer;
  url: string;
  dataDir: string;
  config: ServerConfig;
  close(): Promise<void>;
}

/**
 * `RENDERKIT_TEST_MODE=redis` runs the server's HTTP tests against the scale-out parts
 * (docs/deployment.md#decisions: the server's HTTP tests run in both modes): a real redis-server and an S3-compatible
 * server, started once per test file, each test server with its own key prefix.
 */
export const TEST_MODE: TestMode = process.env.RENDERKIT_TEST_MODE === "redis" ? "redis" : "file";

/** `file`: one process with files; `redis`: BullMQ, records and limits in redis-server, renders in s3rver. */
export type TestMode = "file" | "redis";

let shared: Promise<{ redis: TestRedis; s3: TestS3 }> | undefined;
/** The Redis and S3 servers of this test file (started once, stopped after its last hook). */
export function sharedServices(): Promise<{ redis: TestRedis; s3: TestS3 }> {
  shared ??= Promise.all([startRedis(), startS3(["renders"])]).then(([redis, s3]) => ({ redis, s3 }));
  return shared;
}

// Registered by every test file importing this module, after the file's own afterAll hooks ran
// (hooks stack): the file's servers are closed before its Redis and S3 go.
afterAll(async () => {
  const services = await shared?.catch(() => undefined);
  shared = undefined;
  await Promise.all([services?.redis.stop(), services?.s3.stop()]);
});

/** Config keys of the redis test mode: a fresh prefix, the shared Redis, the `renders` bucket. */
export async function modeConfig(mode: TestMode = TEST_MODE): Promise<Record<string, unknown>> {
  if (mode === "file") return {};
  const { redis, s3 } = await sharedServices();
  return {
    redis: { url: redis.url, prefix: `t${randomUUID().slice(0, 8)}`, lockDurationMs: 5_000, stalledIntervalMs: 2_000 },
    storage: { kind: "s3", ...s3.bucket("renders") },
  };
}

/**
 * The real server on a free loopback port, with two projects and loopback allowed; in the mode
 * of `RENDERKIT_TEST_MODE` unless `mode` names one (suites that run both modes in one file).
 */
export async function startTestServer(
  overrides: Record<string, unknown> = {},
  dataDir?: string,
  options: { mode?: TestMode } = {},
): Promise<TestServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "renderkit-server-"));
  const mode = await modeConfig(options.mode);
  const config = await loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: "127.0.0.1",
      dataDir: dir,
      allowPrivateNetworks: ["127.0.0.1"],
      drainSeconds: 5,
      // Tests that never render start no browser; the warm-up has a test of its own.
      warmup: false,
      projects: [
        { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } },
        { ...PROJECT_B, rateLimit: { requests: 1000, perSeconds: 60 } },
      ],
      webhooks: { timeoutMs: 2000, scheduleMs: [200, 400, 800] },
      ...mode,
      ...overrides,
    } as Partial<ServerConfig>,
  });
  const running = await startServer(config, { logger: new ConsoleLogger("silent") });
  return {
    running,
    url: running.url,
    dataDir: dir,
    config,
    async close() {
      await running.close();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Calls the API with a project's key (or raw headers) and a JSON or form body. */
export async function api(
  base: string,
  path: string,
  init: {
    method?: string;
    key?: string | null;
    json?: unknown;
    form?: Record<string, string | string[]>;
    headers?: Record<string, string>;
  } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body: string | undefined;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = typeof init.json === "string" ? init.json : JSON.stringify(init.json);
  } else if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(init.form)) for (const item of [v].flat()) params.append(k, item);
    body = params.toString();
  }
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (body ? "POST" : "GET"),
    headers,
    body,
    redirect: "manual",
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
