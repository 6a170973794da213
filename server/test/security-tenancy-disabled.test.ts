import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RenderError, type RunGateRequest } from "@renderkit/core";
import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { describe, expect, it, vi } from "vitest";
import { useCleanup } from "../../test/helpers/cleanup.js";
import { startRedis } from "../../test/helpers/redis.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { type CreatedProject, ProjectStore } from "../dist/projects/store.js";
import { projectRunGate } from "../dist/renderer/run-gate.js";
import { RenderStore } from "../dist/state/file-records.js";
import type { RenderRecord } from "../dist/state/records.js";
import { closeRedis, connectRedis } from "../dist/state/redis-client.js";
import { RedisRenderRecords } from "../dist/state/redis-records.js";
import { api, modeConfig, PROJECT_A, PROJECT_B, startTestServer, type TestMode, type TestServer } from "./helpers.js";

// Issue 30, finding 3: after `renderkit projects disable`, renders the project had queued still
// loaded their pages and sent `render.succeeded` webhooks. Now a render of a disabled project that
// has not started does not start, and one running stores nothing: each ends `failed` with
// `ProjectNotEnabled` and its `render.failed` webhook is sent. The projects here live in the
// projects document (`projects.json`, or Redis), and are disabled through a store of their own,
// as the CLI does from another process: the server learns of it only by reading the document.

const cleanup = useCleanup();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A loopback HTTP server recording every request (path, body, headers, in order). A request whose
 * path `holds` is left unanswered until `open()`: a render of it stays running for as long as the
 * test needs, however slow the machine. `answer` gives the status of the others.
 */
async function loopback(options: { holds?: (path: string) => boolean; answer?: (path: string) => number } = {}) {
  const requests: { path: string; body: string; headers: IncomingMessage["headers"] }[] = [];
  const held: (() => void)[] = [];
  let opened = false;
  const server = createServer((req, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const path = req.url ?? "";
      requests.push({ path, body, headers: req.headers });
      const send = () => {
        res.writeHead(options.answer?.(path) ?? 200, { "content-type": "text/html" });
        res.end(`<body style="background:#08f"><h1>${path}</h1></body>`);
      };
      if (!opened && options.holds?.(path)) held.push(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    paths: () => requests.map((r) => r.path),
    open() {
      opened = true;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Loopback = Awaited<ReturnType<typeof loopback>>;

/** The projects document opened from outside the server, as `renderkit projects ...` does. */
async function cliStore(config: ServerConfig): Promise<ProjectStore> {
  const { redis } = config;
  const client = redis ? await connectRedis(redis.url, "test-cli") : undefined;
  if (client) cleanup.push(() => closeRedis(client));
  const { store } = await ProjectStore.open(config, undefined, { createDefault: false, ...(client ? { redis: client } : {}) });
  return store;
}

/** A render's record as the server wrote it (the status endpoint shows no code, and answers 401 for a disabled project). */
async function recordOf(test: TestServer, renderId: string): Promise<RenderRecord | undefined> {
  const { redis } = test.config;
  if (!redis) return new RenderStore(join(test.dataDir, "records"), 86_400_000, quiet).get(renderId);
  const client = await connectRedis(redis.url, "test-records");
  try {
    return await new RedisRenderRecords(client, redis.prefix, 86_400_000, quiet).get(renderId);
  } finally {
    await closeRedis(client);
  }
}

/** Waits until the API knows a project's key again (the server re-reads the projects at most once a second). */
async function keyWorks(test: TestServer, key: string): Promise<void> {
  await expect.poll(async () => (await api(test.url, "/v1/render/none", { key })).status, { timeout: 20_000 }).toBe(404);
}

/** The webhooks `receiver` got at `path`, parsed. */
const hooksAt = (receiver: Loopback, path: string) =>
  receiver.requests
    .filter((r) => r.path === path)
    .map((r) => ({ ...(JSON.parse(r.body) as { event: string; renderId: string; error?: { message: string } }), raw: r }));

async function queueRender(test: TestServer, key: string, url: string, webhookUrl: string, extra: Record<string, unknown> = {}) {
  const created = await api(test.url, "/v1/render/async", {
    key,
    json: { url, webhook_url: webhookUrl, width: 320, height: 200, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.renderId as string;
}

interface Setup {
  /** The data directory, and in Redis mode the Redis prefix and bucket, of every server of the test. */
  dir: string;
  shared: Record<string, unknown>;
  /** The projects document as the CLI opens it. */
  cli: ProjectStore;
  a: CreatedProject;
  b: CreatedProject;
}

/** Projects A and B made as `renderkit projects create` makes them, before any server starts. */
async function twoProjects(mode: TestMode): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), "renderkit-disabled-"));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  const shared = await modeConfig(mode);
  const cli = await cliStore(await loadConfig({ env: {}, overrides: { dataDir: dir, projects: [], ...shared } }));
  const a = await cli.create("Alpha", { id: PROJECT_A.id });
  const b = await cli.create("Beta", { id: PROJECT_B.id });
  return { dir, shared, cli, a, b };
}

const WAIT = { timeout: 120_000, interval: 100 };

describe.each(["file", "redis"] as const)("a disabled project's renders [%s]", (mode: TestMode) => {
  /** A server on the setup's data (one render at a time, the projects of the projects document, loopback allowed). */
  const start = ({ dir, shared }: Setup) => startTestServer({ projects: [], concurrency: 1, ...shared }, dir, { mode });

  it("tenancy finding 3: B's queued renders do not start once B is disabled: failed ProjectNotEnabled, no page loaded, render.failed webhooks; A's renders run", async () => {
    const site = await loopback({ holds: (path) => path.startsWith("/hold") });
    cleanup.push(() => site.close());
    const receiver = await loopback();
    cleanup.push(() => receiver.close());
    const setup = await twoProjects(mode);
    const { cli, a, b } = setup;
    const test = await start(setup);
    cleanup.push(() => test.close());

    // A's render holds the only render slot until the site answers.
    const a1 = await queueRender(test, a.secretKey, `${site.url}/hold/a1`, `${receiver.url}/hook-a`);
    await vi.waitFor(() => expect(site.paths()).toContain("/hold/a1"), WAIT);
    const queued: string[] = [];
    for (let i = 1; i <= 3; i++)
      queued.push(await queueRender(test, b.secretKey, `${site.url}/b/${i}`, `${receiver.url}/hook-b`));
    const a2 = await queueRender(test, a.secretKey, `${site.url}/a2`, `${receiver.url}/hook-a`);

    // The CLI's write, then nothing else: no API call tells the server; its worker must see it.
    await cli.setEnabled(PROJECT_B.id, false);
    site.open();

    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-b")).toHaveLength(3), WAIT);
    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-a")).toHaveLength(2), WAIT);
    for (const hook of hooksAt(receiver, "/hook-b")) {
      expect(hook).toMatchObject({
        event: "render.failed",
        error: { message: "This project is not enabled: the render was not started" },
      });
      expect(
        verifyWebhookSignature(hook.raw.headers["x-service-signature"] as string, hook.raw.body, b.project.webhookSecret),
      ).toBe(true);
    }
    expect(
      hooksAt(receiver, "/hook-b")
        .map((h) => h.renderId)
        .sort(),
    ).toEqual([...queued].sort());
    expect(Object.fromEntries(hooksAt(receiver, "/hook-a").map((h) => [h.renderId, h.event]))).toEqual({
      [a1]: "render.succeeded",
      [a2]: "render.succeeded",
    });
    // No page of B was ever asked for; A's both were.
    expect(site.paths().filter((path) => path.startsWith("/b/"))).toEqual([]);
    expect(site.paths()).toEqual(expect.arrayContaining(["/hold/a1", "/a2"]));
    for (const renderId of queued) {
      expect(await recordOf(test, renderId)).toMatchObject({ status: "failed", code: "ProjectNotEnabled" });
    }

    // The API refuses B's key meanwhile; re-enabled, B sees its renders ended failed, and they stay so.
    await expect
      .poll(async () => (await api(test.url, `/v1/render/${queued[0]}`, { key: b.secretKey })).body?.error?.code, WAIT)
      .toBe("ProjectNotEnabled");
    await cli.setEnabled(PROJECT_B.id, true);
    await keyWorks(test, b.secretKey);
    for (const renderId of queued) {
      const status = await api(test.url, `/v1/render/${renderId}`, { key: b.secretKey });
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({
        renderId,
        status: "failed",
        reason: "This project is not enabled: the render was not started",
      });
    }
    expect(site.paths().filter((path) => path.startsWith("/b/"))).toEqual([]);
  }, 240_000);

  it("tenancy finding 3: B's renders queued before a restart, B disabled while the server was down, fail ProjectNotEnabled after it", async () => {
    const site = await loopback({ holds: (path) => path.startsWith("/hold") });
    cleanup.push(() => site.close());
    const receiver = await loopback();
    cleanup.push(() => receiver.close());
    const setup = await twoProjects(mode);
    const { cli, a, b } = setup;
    const first = await start(setup);
    let firstClosed = false;
    cleanup.push(async () => {
      if (!firstClosed) await first.close();
    });

    const a1 = await queueRender(first, a.secretKey, `${site.url}/hold/a1`, `${receiver.url}/hook-a`);
    await vi.waitFor(() => expect(site.paths()).toContain("/hold/a1"), WAIT);
    const queued: string[] = [];
    for (let i = 1; i <= 2; i++)
      queued.push(await queueRender(first, b.secretKey, `${site.url}/b/${i}`, `${receiver.url}/hook-b`));
    // Stopped while A's render holds the slot: B's renders are still queued (A's resumes after the restart).
    await first.close();
    firstClosed = true;

    // The operator disables B while no server runs.
    await cli.setEnabled(PROJECT_B.id, false);
    site.open();
    const second = await start(setup);
    cleanup.push(() => second.close());

    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-b")).toHaveLength(2), WAIT);
    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-a")).toHaveLength(1), WAIT);
    for (const hook of hooksAt(receiver, "/hook-b")) {
      expect(hook).toMatchObject({
        event: "render.failed",
        error: { message: "This project is not enabled: the render was not started" },
      });
    }
    expect(
      hooksAt(receiver, "/hook-b")
        .map((h) => h.renderId)
        .sort(),
    ).toEqual([...queued].sort());
    expect(hooksAt(receiver, "/hook-a").map((h) => [h.renderId, h.event])).toEqual([[a1, "render.succeeded"]]);
    expect(site.paths().filter((path) => path.startsWith("/b/"))).toEqual([]);
    for (const renderId of queued) {
      expect(await recordOf(second, renderId)).toMatchObject({ status: "failed", code: "ProjectNotEnabled" });
    }
  }, 240_000);

  it("tenancy finding 3: a B render running when B is disabled stores nothing: failed ProjectNotEnabled, one render.failed webhook; a waiting sync request gets 401", async () => {
    const site = await loopback({ holds: (path) => path.startsWith("/hold") });
    cleanup.push(() => site.close());
    const receiver = await loopback();
    cleanup.push(() => receiver.close());
    const setup = await twoProjects(mode);
    const { cli, a, b } = setup;
    const test = await start(setup);
    cleanup.push(() => test.close());

    // Its page is loading (the render has started) when B is disabled; a side file is asked for too.
    const running = await queueRender(test, b.secretKey, `${site.url}/hold/b1`, `${receiver.url}/hook-b`, { save_html: true });
    await vi.waitFor(() => expect(site.paths()).toContain("/hold/b1"), WAIT);
    // A sync request of B waits behind it, accepted (queued) before the disable.
    const sync = api(test.url, "/v1/render/sync", {
      key: b.secretKey,
      json: { url: `${site.url}/b-sync`, width: 320, height: 200 },
    });
    await vi.waitFor(async () => expect((await test.running.renderer.queueCounts()).waiting).toBe(1), WAIT);
    await cli.setEnabled(PROJECT_B.id, false);
    site.open();
    // Its client is told why its render did not run.
    const answered = await sync;
    expect(answered.status).toBe(401);
    expect(answered.body.error).toEqual({
      code: "ProjectNotEnabled",
      message: "This project is not enabled: the render was not started",
    });
    // A render of A queued after it ends after it (one slot): by then B's webhook had its chance to come twice.
    const after = await queueRender(test, a.secretKey, `${site.url}/a-after`, `${receiver.url}/hook-a`);
    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-a")).toHaveLength(1), WAIT);
    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-b")).toHaveLength(1), WAIT);

    expect(hooksAt(receiver, "/hook-b")[0]).toMatchObject({
      event: "render.failed",
      renderId: running,
      error: { message: "This project is not enabled: the render was stopped and its output was not stored" },
    });
    expect(hooksAt(receiver, "/hook-a")[0]).toMatchObject({ event: "render.succeeded", renderId: after });
    expect(await recordOf(test, running)).toMatchObject({ status: "failed", code: "ProjectNotEnabled" });
    // Neither the render nor its side file is in the server's storage.
    expect(await test.running.renderer.read(`${running}.png`)).toBeUndefined();
    expect(await test.running.renderer.read(`${running}.html`)).toBeUndefined();
    expect(site.paths().filter((path) => path === "/b-sync")).toEqual([]);
  }, 240_000);

  it("tenancy finding 3: B's render links answer 401 ProjectNotEnabled once B is disabled, and load no page", async () => {
    const site = await loopback();
    cleanup.push(() => site.close());
    const setup = await twoProjects(mode);
    const { cli, b } = setup;
    const test = await start(setup);
    cleanup.push(() => test.close());
    const query = `url=${encodeURIComponent(`${site.url}/b-link`)}&width=320&height=200`;
    const token = createHmac("sha256", b.secretKey).update(`png?${query}`).digest("hex");
    const link = `/v1/${b.project.publishableKey}/${token}/png?${query}`;
    expect((await api(test.url, link)).status).toBe(200);
    expect(site.paths().filter((path) => path === "/b-link")).toHaveLength(1);

    await cli.setEnabled(PROJECT_B.id, false);
    // Refused at the door (the server re-reads the projects at most once a second), not queued.
    await expect
      .poll(async () => (await api(test.url, link)).body?.error, WAIT)
      .toEqual({ code: "ProjectNotEnabled", message: "This project is not enabled" });
    expect(site.paths().filter((path) => path === "/b-link")).toHaveLength(1);
  }, 240_000);

  it("tenancy finding 3: the webhook of a B render that ended before B was disabled is still delivered", async () => {
    let disabled = false;
    let firstAnswered = false;
    const site = await loopback();
    cleanup.push(() => site.close());
    // The first delivery waits for the disable and then fails, so the webhook is still pending
    // when B is disabled; deliveries after the disable are accepted.
    const receiver = await loopback({
      holds: () => !firstAnswered,
      answer: () => {
        if (!firstAnswered) {
          firstAnswered = true;
          return 500;
        }
        return disabled ? 200 : 500;
      },
    });
    cleanup.push(() => receiver.close());
    const setup = await twoProjects(mode);
    const { cli, b } = setup;
    const test = await start(setup);
    cleanup.push(() => test.close());

    const ended = await queueRender(test, b.secretKey, `${site.url}/b-early`, `${receiver.url}/hook-b`);
    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-b")).toHaveLength(1), WAIT);
    await cli.setEnabled(PROJECT_B.id, false);
    disabled = true;
    receiver.open();

    await vi.waitFor(() => expect(hooksAt(receiver, "/hook-b").length).toBeGreaterThan(1), WAIT);
    const [, delivered] = hooksAt(receiver, "/hook-b");
    expect(delivered).toMatchObject({ event: "render.succeeded", renderId: ended });
    expect(
      verifyWebhookSignature(
        delivered?.raw.headers["x-service-signature"] as string,
        delivered?.raw.body ?? "",
        b.project.webhookSecret,
      ),
    ).toBe(true);
    expect(await recordOf(test, ended)).toMatchObject({ status: "succeeded" });
  }, 240_000);
});

describe("the projects' run gate when the projects cannot be read [redis]", () => {
  it("tenancy finding 3: Redis unreachable is no refusal: the gate throws a plain error (the render waits in the queue), and answers again once Redis is back", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const dir = mkdtempSync(join(tmpdir(), "renderkit-disabled-gate-"));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const config = await loadConfig({
      env: {},
      overrides: { dataDir: dir, projects: [], redis: { url: redis.url, prefix: "gate" } } as unknown as Partial<ServerConfig>,
    });
    const store = await cliStore(config);
    const { project } = await store.create("Beta", { id: PROJECT_B.id });
    const gate = projectRunGate(store);
    const ask = (stage: "start" | "store") =>
      gate({ renderId: "r1", options: {} as RunGateRequest["options"], job: { projectId: project.id }, attempt: 1, stage });
    await expect(ask("start")).resolves.toBeUndefined();

    await redis.stop();
    for (const stage of ["start", "store"] as const) {
      const error = await ask(stage).then(
        () => undefined,
        (e: unknown) => e,
      );
      // A RenderError would end the render `failed`; anything else sends it back to the queue.
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(RenderError);
      expect((error as Error).message).toMatch(/^the projects could not be read: /);
    }

    await redis.restart();
    await vi.waitFor(() => expect(ask("start")).resolves.toBeUndefined(), { timeout: 30_000, interval: 200 });
  }, 120_000);
});
