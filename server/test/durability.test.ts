import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A } from "./helpers.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
let site: Awaited<ReturnType<typeof listenLocal>>;
let receiver: Awaited<ReturnType<typeof listenLocal>>;
const hooks: { renderId: string; ok: boolean }[] = [];
let dir: string;
let child: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

async function serve(configFile: string, url: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [CLI, "serve", "--config", configFile], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RENDERKIT_LOG_LEVEL: "warn" },
  });
  // Until it answers or exits: a loaded machine starts it slower, and the test's own limit bounds the wait.
  for (;;) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return proc;
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  site = await listenLocal(() => ({ body: "<h1>durable</h1>", delayMs: 1500 }));
  receiver = await listenLocal((req, body) => {
    const parsed = JSON.parse(body) as { renderId: string };
    hooks.push({
      renderId: parsed.renderId,
      ok: verifyWebhookSignature(req.headers["x-service-signature"] as string, body, PROJECT_A.webhookSecret),
    });
    return { status: 200 };
  });
  dir = mkdtempSync(join(tmpdir(), "renderkit-durable-"));
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await site.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("durability", () => {
  it("finishes every accepted render and sends every webhook once after kill -9 and a restart", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const configFile = join(dir, "config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        port,
        host: "127.0.0.1",
        dataDir: join(dir, "data"),
        allowPrivateNetworks: ["127.0.0.1"],
        concurrency: 1,
        projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } }],
        webhooks: { timeoutMs: 2000, scheduleMs: [200, 400, 800, 1600] },
      }),
    );
    child = await serve(configFile, url);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await api(url, "/v1/render/async", {
        json: { url: `${site.url}/${i}`, webhook_url: `${receiver.url}/hook` },
        key: PROJECT_A.secretKey,
      });
      expect(created.status).toBe(201);
      ids.push(created.body.renderId);
    }
    child.kill("SIGKILL");
    await new Promise((r) => child?.once("exit", r));
    child = await serve(configFile, url);
    const end = Date.now() + 90_000;
    const statuses = new Map<string, string>();
    const seen = new Set<string>();
    while (Date.now() < end && (statuses.size < ids.length || [...statuses.values()].some((s) => s !== "succeeded"))) {
      for (const id of ids) {
        const status = (await api(url, `/v1/render/${id}`, { key: PROJECT_A.secretKey })).body.status;
        statuses.set(id, status);
        seen.add(status);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    expect([...statuses.values()]).toEqual(ids.map(() => "succeeded"));
    // Every accepted render was on record from its 201 on: never not-found after the restart.
    expect(seen.has("not-found")).toBe(false);
    const hooksEnd = Date.now() + 20_000;
    while (Date.now() < hooksEnd && !ids.every((id) => hooks.some((h) => h.renderId === id)))
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    for (const id of ids) {
      const received = hooks.filter((h) => h.renderId === id);
      expect(received).toHaveLength(1);
      expect(received[0]?.ok).toBe(true);
    }
    child.kill("SIGTERM");
    await new Promise((r) => child?.once("exit", r));
  }, 180_000);

  it("drains on SIGTERM: the running render finishes, queued ones wait on disk, waiting clients get a 307 at once", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const configFile = join(dir, "drain.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        port,
        host: "127.0.0.1",
        dataDir: join(dir, "drain-data"),
        allowPrivateNetworks: ["127.0.0.1"],
        concurrency: 1,
        drainSeconds: 20,
        // Sync waits answer 307 after 10 minutes: only the drain can answer the waiting client
        // within this test, whatever the machine's speed.
        redirectAfter: 600,
        maxRedirectAfter: 600,
        projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } }],
      }),
    );
    child = await serve(configFile, url);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await api(url, "/v1/render/async", { json: { url: `${site.url}/drain-${i}` }, key: PROJECT_A.secretKey });
      ids.push(created.body.renderId);
    }
    // A sync client waiting (up to the 600 s threshold) behind the queued renders.
    const waiting = api(url, "/v1/render/sync", { json: { url: `${site.url}/drain-sync` }, key: PROJECT_A.secretKey });
    await new Promise((r) => setTimeout(r, 500));
    const running = child;
    const exited = new Promise<number | null>((r) => running.once("exit", (code) => r(code)));
    running.kill("SIGTERM");
    // Draining says so on /ready once the server has handled the signal (on a busy machine that
    // may take a while): asked until it answers something else than ready, while it still runs.
    let ready = 200;
    while (ready === 200 && running.exitCode === null) {
      ready = await fetch(`${url}/ready`).then(
        (response) => response.status,
        () => 0,
      );
      if (ready === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready).toBe(503);
    const answer = await waiting;
    expect(answer.status).toBe(307);
    expect(answer.body.redirectUrl).toMatch(new RegExp(`^${url}/v1/render/sync/[0-9a-f-]+_s$`));
    expect(await exited).toBe(0);
    child = await serve(configFile, url);
    const first = await api(url, `/v1/render/${ids[0]}`, { key: PROJECT_A.secretKey });
    expect(first.body.status).toBe("succeeded");
    const end = Date.now() + 60_000;
    let statuses: string[] = [];
    while (Date.now() < end) {
      statuses = await Promise.all(
        ids.map(async (id) => (await api(url, `/v1/render/${id}`, { key: PROJECT_A.secretKey })).body.status),
      );
      if (statuses.every((s) => s === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(statuses).toEqual(["succeeded", "succeeded", "succeeded"]);
    child.kill("SIGTERM");
    await new Promise((r) => child?.once("exit", r));
  }, 180_000);

  it("a render still running when the drain bound ends is not failed: it resumes on the next start", async () => {
    const slow = await listenLocal(() => ({ body: "<h1>slow but fine</h1>", delayMs: 6_000 }));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const configFile = join(dir, "cut.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        port,
        host: "127.0.0.1",
        dataDir: join(dir, "cut-data"),
        allowPrivateNetworks: ["127.0.0.1"],
        drainSeconds: 1,
        projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } }],
      }),
    );
    try {
      child = await serve(configFile, url);
      const created = await api(url, "/v1/render/async", { json: { url: `${slow.url}/cut` }, key: PROJECT_A.secretKey });
      const id = created.body.renderId as string;
      await expect.poll(() => slow.requests.length, { timeout: 20_000 }).toBeGreaterThan(0);
      const running = child;
      running.kill("SIGTERM");
      await new Promise((r) => running.once("exit", r));
      child = await serve(configFile, url);
      const seen = new Set<string>();
      let status = "";
      for (let i = 0; i < 300 && status !== "succeeded" && status !== "failed"; i++) {
        status = (await api(url, `/v1/render/${id}`, { key: PROJECT_A.secretKey })).body.status;
        seen.add(status);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe("succeeded");
      expect(seen.has("failed")).toBe(false);
    } finally {
      child?.kill("SIGTERM");
      await new Promise((r) => (child?.exitCode === null ? child.once("exit", r) : r(null)));
      await slow.close();
    }
  }, 120_000);
});
