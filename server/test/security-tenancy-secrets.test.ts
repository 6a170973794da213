import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { keyedJobSecrets, type Logger } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ForwardProxy, startForwardProxy } from "../../test/helpers/forward-proxy.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { type RunningServer, startServer } from "../dist/serve.js";
import { startWorker } from "../dist/worker.js";
import { api, listenLocal, modeConfig, PROJECT_A, PROJECT_B, sharedServices, type TestMode } from "./helpers.js";

// Issue 30, finding 5: the caller's secrets (`authorization`, `proxy` with its credentials,
// `headers`, `cookies`, the presigned upload addresses) are never at rest in clear: not in the
// queue while the render waits (the data directory's file queue, BullMQ's jobs in Redis), not
// after it ended (BullMQ keeps finished jobs), not in records, status answers or webhooks. Every
// Redis key and value, every file of the data directory and every object of the bucket is
// searched for each secret, in clear and in base64. The render still gets them.

const A = PROJECT_A.secretKey;
type Local = Awaited<ReturnType<typeof listenLocal>>;

/** Distinct values, fresh for each run, so nothing else can contain them by chance. */
function newSecrets() {
  const tag = () => randomBytes(9).toString("hex");
  return {
    authorization: `AUTHZ${tag()}`,
    header: `HEADER${tag()}`,
    cookie: `COOKIE${tag()}`,
    proxyUser: `pxuser${tag()}`,
    proxyPass: `PXPASS${tag()}`,
    signature: `SIGNATURE${tag()}`,
    sideSignature: `SIDESIG${tag()}`,
  };
}
type Secrets = ReturnType<typeof newSecrets>;

/** What must not be found for `s`: each value, and the proxy's credentials as they go in `Proxy-Authorization`. */
const needles = (s: Secrets): string[] => [...Object.values(s), `${s.proxyUser}:${s.proxyPass}`];

/**
 * The forms a value takes inside a larger text: itself, and its base64 and base64url at each of
 * the three byte alignments (the groups that mix with the bytes around it left out).
 */
function forms(value: string): string[] {
  const out = [value];
  for (let shift = 0; shift < 3; shift++) {
    const bytes = Buffer.concat([Buffer.alloc(shift, 0x41), Buffer.from(value, "utf8")]);
    for (const encoding of ["base64", "base64url"] as const) {
      const text = bytes.toString(encoding).replace(/=+$/, "");
      out.push(text.slice(shift === 0 ? 0 : 4, -4));
    }
  }
  return out;
}

/** Which of `values` (in any form) `haystack` contains, named by where it was found. */
function search(where: string, haystack: Buffer | string, values: string[]): string[] {
  const text = typeof haystack === "string" ? haystack : haystack.toString("latin1");
  return values.filter((value) => forms(value).some((form) => text.includes(form))).map((value) => `${value} in ${where}`);
}

const flat = (value: unknown): Buffer[] =>
  Array.isArray(value) ? value.flatMap(flat) : value == null ? [] : [Buffer.isBuffer(value) ? value : Buffer.from(String(value))];

/** Every key of the Redis server and every value of it, whatever its type. */
async function redisContents(url: string): Promise<[string, Buffer][]> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const out: [string, Buffer][] = [];
    let cursor = "0";
    do {
      const [next, keys] = await client.scanBuffer(cursor, "COUNT", 1000);
      cursor = String(next);
      for (const raw of keys) {
        const key = raw.toString("latin1");
        const type = await client.type(raw);
        const read: Record<string, () => Promise<unknown>> = {
          string: () => client.getBuffer(raw),
          hash: () => client.callBuffer("HGETALL", raw),
          list: () => client.lrangeBuffer(raw, 0, -1),
          set: () => client.smembersBuffer(raw),
          zset: () => client.callBuffer("ZRANGE", raw, "0", "-1", "WITHSCORES"),
          stream: () => client.callBuffer("XRANGE", raw, "-", "+"),
        };
        const value = read[type] ? await read[type]() : [];
        if (!read[type]) throw new Error(`a Redis key of a type this scan does not read: ${key} (${type})`);
        out.push([`redis ${key} (${type})`, Buffer.concat([raw, Buffer.from("\n"), ...flat(value)])]);
      }
    } while (cursor !== "0");
    return out;
  } finally {
    client.disconnect();
  }
}

/** Every file under `dir`, with its name. */
function fileContents(dir: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    try {
      out.push([`file ${path}`, Buffer.concat([Buffer.from(path), Buffer.from("\n"), readFileSync(path)])]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // renamed or removed meanwhile
    }
  }
  return out;
}

/** Every object of the test S3 server's `renders` bucket (Redis mode's render storage). */
async function bucketContents(): Promise<[string, Buffer][]> {
  const { s3 } = await sharedServices();
  const client = s3.client();
  try {
    const out: [string, Buffer][] = [];
    const listed = await client.send(new ListObjectsV2Command({ Bucket: "renders" }));
    for (const { Key } of listed.Contents ?? []) {
      const object = await client.send(new GetObjectCommand({ Bucket: "renders", Key }));
      out.push([
        `s3 renders/${Key}`,
        Buffer.concat([Buffer.from(Key ?? ""), Buffer.from(await object.Body!.transformToByteArray())]),
      ]);
    }
    return out;
  } finally {
    client.destroy();
  }
}

/** A loopback site: `/hold` answers once `release()` is called (until `hold()`), `/fail` answers 500, the rest a page. */
async function heldSite() {
  const requests: { url: string; headers: IncomingMessage["headers"] }[] = [];
  const held: ServerResponse[] = [];
  let released = false;
  const page = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/html" }).end("<h1>secrets</h1>");
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/fail") return void res.writeHead(500, { "content-type": "text/html" }).end("<h1>down</h1>");
    if (req.url === "/hold" && !released) return void held.push(res);
    page(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    hold() {
      released = false;
    },
    release() {
      released = true;
      for (const res of held.splice(0)) page(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits for `check` (an event of the system under test), a tick at a time. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The status answer of a render once it has ended. */
async function ended(base: string, renderId: string) {
  let answer = await api(base, `/v1/render/${renderId}`, { key: A });
  while (answer.body?.status !== "succeeded" && answer.body?.status !== "failed") {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await api(base, `/v1/render/${renderId}`, { key: A });
  }
  return answer;
}

interface Started {
  running: RunningServer;
  config: ServerConfig;
  dataDir: string;
  logger: RecordingLogger;
}

/** The real server (as `startTestServer`), with a logger the test reads and the config it needs here. */
async function start(mode: TestMode, dataDir: string, role?: "api"): Promise<Started> {
  const config = await loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: "127.0.0.1",
      dataDir,
      allowPrivateNetworks: ["127.0.0.1"],
      drainSeconds: 5,
      warmup: false,
      concurrency: 1,
      projects: [
        { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } },
        { ...PROJECT_B, rateLimit: { requests: 1000, perSeconds: 60 } },
      ],
      webhooks: { timeoutMs: 2000, scheduleMs: [200, 400, 800] },
      ...(await modeConfig(mode)),
    } as Partial<ServerConfig>,
  });
  const logger = new RecordingLogger();
  const running = await startServer(config, { logger, ...(role ? { role } : {}) });
  return { running, config, dataDir, logger };
}

describe.each(["file", "redis"] as const)("caller secrets at rest [%s]", (mode) => {
  let site: Awaited<ReturnType<typeof heldSite>>;
  let proxy: ForwardProxy;
  let uploads: Local;
  let hooks: Local;
  let server: Started;
  let secrets: Secrets;
  const closing: (() => Promise<unknown>)[] = [];

  /** Where anything of a render may rest: Redis (every key), the data directory, the bucket. */
  const everything = async (): Promise<[string, Buffer][]> => [
    ...(mode === "redis" ? [...(await redisContents((await sharedServices()).redis.url)), ...(await bucketContents())] : []),
    ...fileContents(server.dataDir),
  ];
  const leaks = async (values: string[]) => (await everything()).flatMap(([where, data]) => search(where, data, values));

  /** The render options carrying every secret (`path` on the site). */
  const withSecrets = (s: Secrets, path: string, extra: Record<string, unknown> = {}) => ({
    url: `${site.url}${path}`,
    width: 320,
    height: 200,
    authorization: `Bearer ${s.authorization}`,
    headers: [`X-Tenancy-Secret: ${s.header}`],
    cookies: [`sid=${s.cookie}`],
    proxy: `${s.proxyUser}:${s.proxyPass}@127.0.0.1:${proxy.port}`,
    s3_presigned_url: `${uploads.url}/render.png?X-Amz-Signature=${s.signature}`,
    save_html: true,
    s3_presigned_url_html: `${uploads.url}/render.html?X-Amz-Signature=${s.sideSignature}`,
    webhook_url: `${hooks.url}/hook`,
    ...extra,
  });

  beforeAll(async () => {
    site = await heldSite();
    closing.push(() => site.close());
    secrets = newSecrets();
    proxy = await startForwardProxy(`${secrets.proxyUser}:${secrets.proxyPass}`);
    closing.push(() => proxy.close());
    uploads = await listenLocal(() => ({ status: 200, body: "" }));
    closing.push(() => uploads.close());
    hooks = await listenLocal(() => ({ status: 200, body: "" }));
    closing.push(() => hooks.close());
    const dir = mkdtempSync(join(tmpdir(), "renderkit-secrets-"));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    server = await start(mode, dir);
    closing.push(() => server.running.close());
  }, 120_000);

  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch(() => undefined);
  });

  /**
   * Queues `json` behind a render that holds the only worker slot, reads everything at rest while
   * it waits, then lets both run. Resolves with its id and what was at rest.
   */
  async function queueBehindBlocker(json: Record<string, unknown>) {
    site.hold();
    const holds = () => site.requests.filter((r) => r.url === "/hold").length;
    const before = holds();
    const blocker = await api(server.running.url, "/v1/render/async", {
      key: A,
      json: { url: `${site.url}/hold`, width: 320, height: 200 },
    });
    expect(blocker.status, blocker.text).toBe(201);
    await until(() => holds() > before);
    const queued = await api(server.running.url, "/v1/render/async", { key: A, json });
    expect(queued.status, queued.text).toBe(201);
    const renderId: string = queued.body.renderId;
    const atRest = await everything();
    const statusWhileQueued = await api(server.running.url, `/v1/render/${renderId}`, { key: A });
    site.release();
    expect((await ended(server.running.url, blocker.body.renderId)).body.status).toBe("succeeded");
    // The scan did see the queued job (so it would have seen its secrets): its render id is there.
    const job = atRest.filter(([where, data]) => data.includes(renderId) && /queue|bull|:renders:/.test(where));
    expect(job.length, "the queued job is among what was read").toBeGreaterThan(0);
    return { renderId, atRest, statusWhileQueued: statusWhileQueued.text };
  }

  it(`tenancy finding 5: no secret of a queued render, nor of one that succeeded, is at rest in clear; the render still used them [${mode}]`, async () => {
    const { renderId, atRest, statusWhileQueued } = await queueBehindBlocker(withSecrets(secrets, "/page"));
    expect(atRest.flatMap(([where, data]) => search(where, data, needles(secrets)))).toEqual([]);
    const status = await ended(server.running.url, renderId);
    expect(status.body.status, status.text).toBe("succeeded");

    // The render got every secret: the page saw the header, the cookie and the authorization,
    // through the proxy, which saw its credentials; each upload went to its signed address.
    const seen = site.requests.find((r) => r.url === "/page");
    expect(seen?.headers.authorization).toBe(`Bearer ${secrets.authorization}`);
    expect(seen?.headers["x-tenancy-secret"]).toBe(secrets.header);
    expect(seen?.headers.cookie).toContain(`sid=${secrets.cookie}`);
    const basic = `Basic ${Buffer.from(`${secrets.proxyUser}:${secrets.proxyPass}`).toString("base64")}`;
    expect(proxy.requests).toContainEqual({ method: "GET", target: `${site.url}/page`, auth: basic });
    expect(uploads.requests.map((r) => r.url).sort()).toEqual([
      `/render.html?X-Amz-Signature=${secrets.sideSignature}`,
      `/render.png?X-Amz-Signature=${secrets.signature}`,
    ]);

    // Nothing kept after the end (BullMQ keeps finished jobs; records, webhooks), nor in the answers.
    await until(() => hooks.requests.some((r) => r.body.includes(renderId)));
    expect(await leaks(needles(secrets))).toEqual([]);
    for (const answer of [statusWhileQueued, status.text, ...hooks.requests.map((r) => r.body)]) {
      expect(search("an answer", answer, needles(secrets))).toEqual([]);
    }
  }, 180_000);

  it(`tenancy finding 5: no secret of a render that fails is at rest in clear, queued or ended [${mode}]`, async () => {
    const failing = newSecrets();
    // The proxy is this file's (its credentials): the page is reached, answers 500 and fails the render.
    const json = {
      ...withSecrets(failing, "/fail", { fail_on_5xx: true }),
      proxy: `${secrets.proxyUser}:${secrets.proxyPass}@127.0.0.1:${proxy.port}`,
    };
    const { renderId, atRest } = await queueBehindBlocker(json);
    expect(atRest.flatMap(([where, data]) => search(where, data, [...needles(failing), ...needles(secrets)]))).toEqual([]);
    const status = await ended(server.running.url, renderId);
    expect(status.body.status, status.text).toBe("failed");
    const seen = site.requests.find((r) => r.url === "/fail");
    expect(seen?.headers["x-tenancy-secret"]).toBe(failing.header);
    expect(seen?.headers.authorization).toBe(`Bearer ${failing.authorization}`);
    await until(() => hooks.requests.some((r) => r.body.includes(renderId)));
    expect(await leaks([...needles(failing), ...needles(secrets)])).toEqual([]);
    for (const answer of [status.text, ...hooks.requests.map((r) => r.body)]) {
      expect(search("an answer", answer, needles(failing))).toEqual([]);
    }
  }, 180_000);

  it(`tenancy finding 5: a job queued before the upgrade (secrets in clear) still runs with them; one sealed under another master key fails with a generic error and the log says why [${mode}]`, async () => {
    const old = newSecrets();
    const parsed = server.running.renderer.parse({
      url: `${site.url}/legacy`,
      width: 320,
      height: 200,
      authorization: `Bearer ${old.authorization}`,
      headers: [`X-Tenancy-Secret: ${old.header}`],
      cookies: [`sid=${old.cookie}`],
      proxy: `${secrets.proxyUser}:${secrets.proxyPass}@127.0.0.1:${proxy.port}`,
    });
    const job = { projectId: PROJECT_A.id };
    const legacyId = `legacy-${randomBytes(4).toString("hex")}`;
    const otherKeyId = `otherkey-${randomBytes(4).toString("hex")}`;
    // What the previous version queued: every option in clear.
    const legacy = { options: parsed.options, origin: "async", job };
    // What a node with another master key queued.
    const { authorization, headers, cookies, proxy: proxied, ...rest } = parsed.options;
    const foreign = keyedJobSecrets(randomBytes(32));
    const sealed = await foreign.seal(JSON.stringify({ authorization, headers, cookies, proxy: proxied }), otherKeyId);
    const otherKey = { options: { ...rest, url: `${site.url}/other-key` }, sealed, origin: "async", job };

    const dir = mkdtempSync(join(tmpdir(), "renderkit-secrets-upgrade-"));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const planted = [
      { id: legacyId, data: legacy },
      { id: otherKeyId, data: otherKey },
    ];
    if (mode === "file") {
      // The file queue of a server stopped before the upgrade, holding both jobs.
      mkdirSync(join(dir, "queue", "waiting"), { recursive: true });
      planted.forEach(({ id, data }, n) => {
        const name = `${String(Date.now()).padStart(15, "0")}-${String(n).padStart(6, "0")}-${id}.json`;
        writeFileSync(join(dir, "queue", "waiting", name), JSON.stringify({ id, data, attempt: 1, enqueuedAt: Date.now() }));
      });
    }
    const upgraded = await start(mode, dir);
    closing.push(() => upgraded.running.close());
    if (mode === "redis") {
      // BullMQ jobs as the previous version's API node added them.
      const prefix = (upgraded.config.redis as { prefix: string }).prefix;
      const queue = new Queue("renders", { connection: { url: (await sharedServices()).redis.url }, prefix });
      for (const { id, data } of planted) {
        await queue.add("render", { data, attempt: 1, enqueuedAt: Date.now() }, { jobId: id, attempts: 1 });
      }
      await queue.close();
    }
    const legacyStatus = await ended(upgraded.running.url, legacyId);
    expect(legacyStatus.body.status, legacyStatus.text).toBe("succeeded");
    const seen = site.requests.find((r) => r.url === "/legacy");
    expect(seen?.headers.authorization).toBe(`Bearer ${old.authorization}`);
    expect(seen?.headers["x-tenancy-secret"]).toBe(old.header);
    expect(seen?.headers.cookie).toContain(`sid=${old.cookie}`);
    // Once it ran, the file queue holds it no more (BullMQ keeps a finished job: the old version wrote it in clear).
    if (mode === "file") expect(fileContents(dir).flatMap(([where, data]) => search(where, data, needles(old)))).toEqual([]);

    // The job this node cannot open: a generic 503 for the caller, the reason in the log, no page loaded.
    const answer = await api(upgraded.running.url, `/v1/render/sync/${otherKeyId}`, { key: A });
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.error).toEqual({
      code: "ServiceUnavailable",
      message: "The render could not be run: this server cannot read its secret options (a server configuration fault)",
    });
    expect(site.requests.some((r) => r.url === "/other-key")).toBe(false);
    const logged = upgraded.logger.at("error", "cannot open the secret options of a queued render; it fails");
    expect(logged).toHaveLength(1);
    expect(logged[0]?.fields.renderId).toBe(otherKeyId);
    expect(String(logged[0]?.fields.error)).toMatch(
      /do not open with this key .*this node's master key is not the one of the node that queued the render; give every node the same RENDERKIT_MASTER_KEY/,
    );
  }, 180_000);
});

describe("a worker without the master key [redis]", () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch(() => undefined);
  });

  it("tenancy finding 5: a worker without the API node's master key fails renders with caller secrets (503, generic), warns at start and logs why; others still render [redis]", async () => {
    const previous = process.env.RENDERKIT_MASTER_KEY;
    delete process.env.RENDERKIT_MASTER_KEY;
    closing.push(async () => {
      if (previous !== undefined) process.env.RENDERKIT_MASTER_KEY = previous;
    });
    const site = await heldSite();
    closing.push(() => site.close());
    const apiDir = mkdtempSync(join(tmpdir(), "renderkit-secrets-api-"));
    const workerDir = mkdtempSync(join(tmpdir(), "renderkit-secrets-worker-"));
    closing.push(async () => {
      rmSync(apiDir, { recursive: true, force: true });
      rmSync(workerDir, { recursive: true, force: true });
    });
    // The API node generates a master key into its own data directory; the worker has none.
    const apiNode = await start("redis", apiDir, "api");
    closing.push(() => apiNode.running.close());
    const workerLog = new RecordingLogger();
    const workerConfig = { ...apiNode.config, dataDir: workerDir, baseUrl: apiNode.running.url, port: 0 };
    const worker = await startWorker(workerConfig, { logger: workerLog as Logger });
    closing.push(() => worker.close());
    expect(workerLog.at("warn").map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^no master key on this worker .*RENDERKIT_MASTER_KEY/),
    );

    const secret = `AUTHZ${randomBytes(9).toString("hex")}`;
    const refused = await api(apiNode.running.url, "/v1/render/sync", {
      key: A,
      json: { url: `${site.url}/page`, width: 320, height: 200, authorization: `Bearer ${secret}` },
    });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.error).toEqual({
      code: "ServiceUnavailable",
      message: "The render could not be run: this server cannot read its secret options (a server configuration fault)",
    });
    expect(site.requests).toEqual([]);
    const logged = workerLog.at("error", "cannot open the secret options of a queued render; it fails");
    expect(logged).toHaveLength(1);
    expect(String(logged[0]?.fields.error)).toMatch(/this node has no master key .*RENDERKIT_MASTER_KEY/);

    const plain = await api(apiNode.running.url, "/v1/render/sync", {
      key: A,
      json: { url: `${site.url}/plain`, width: 320, height: 200 },
    });
    expect(plain.status, plain.text).toBe(200);
  }, 180_000);
});
