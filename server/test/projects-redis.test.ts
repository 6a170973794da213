import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ConsoleLogger } from "@renderkit/core";
import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Cleanup, runCleanup } from "../../test/helpers/cleanup.js";
import { freePort, startRedis, type TestRedis } from "../../test/helpers/redis.js";
import { loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { ProjectStore } from "../dist/projects/store.js";
import { startServer } from "../dist/serve.js";
import { closeRedis, connectRedis } from "../dist/state/redis-client.js";
import { startWorker } from "../dist/worker.js";
import { api, listenLocal } from "./helpers.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const run = promisify(execFile);
const MASTER = randomBytes(32).toString("hex");

let redis: TestRedis;
let dir: string;

beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "renderkit-projects-redis-"));
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A Redis-mode config with no projects in it: they live in Redis. */
async function config(prefix: string, node: string, extra: Partial<ServerConfig> = {}): Promise<ServerConfig> {
  return loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: "127.0.0.1",
      dataDir: join(dir, node),
      allowPrivateNetworks: ["127.0.0.1"],
      redis: { url: redis.url, prefix },
      ...extra,
    } as Partial<ServerConfig>,
  });
}

describe("projects in Redis (API and worker nodes share them)", () => {
  it("the first node creates the default project in Redis; another node with the same master key reads its keys", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}`;
    const a = await config(prefix, "a");
    const client = await connectRedis(redis.url, "test");
    try {
      const first = await ProjectStore.open(a, undefined, { redis: client, masterKey: MASTER });
      expect(first.created?.project.id).toBe("default");
      expect(first.store.source).toBe(`redis ${prefix}:projects`);
      const secretKey = first.created?.secretKey as string;
      // Another machine: its own data directory, the same RENDERKIT_MASTER_KEY.
      const b = await ProjectStore.open(await config(prefix, "b"), undefined, {
        redis: client,
        masterKey: MASTER,
        createDefault: false,
      });
      expect(b.created).toBeUndefined();
      expect(b.store.bySecretKey(secretKey)?.id).toBe("default");
      expect(b.store.byId("default")?.webhookSecret).toBe(first.created?.project.webhookSecret);
      // A node with another master key cannot read the sealed keys, and says what to do.
      await expect(
        ProjectStore.open(await config(prefix, "c"), undefined, { redis: client, masterKey: randomBytes(32).toString("hex") }),
      ).rejects.toThrow(/master key .* is not the one they were written with; give every node the same RENDERKIT_MASTER_KEY/);
    } finally {
      await closeRedis(client);
    }
  });

  it("two projects created at once on two nodes both land", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}`;
    const client = await connectRedis(redis.url, "test");
    try {
      const open = async (node: string) =>
        (
          await ProjectStore.open(await config(prefix, node), undefined, {
            redis: client,
            masterKey: MASTER,
            createDefault: false,
          })
        ).store;
      const [x, y] = await Promise.all([open("x"), open("y")]);
      const made = await Promise.all([x.create("Shop"), y.create("Reports"), x.create("Blog"), y.create("Docs")]);
      const fresh = await open("z");
      expect(
        fresh
          .list()
          .map((p) => p.name)
          .sort(),
      ).toEqual(["Blog", "Docs", "Reports", "Shop"]);
      for (const { project, secretKey } of made) expect(fresh.bySecretKey(secretKey)?.id).toBe(project.id);
    } finally {
      await closeRedis(client);
    }
  });

  it("`renderkit projects create` against Redis: a running API node accepts the new key at once", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}`;
    const cfg = await config(prefix, "live");
    const file = join(dir, `${prefix}.json`);
    writeFileSync(file, JSON.stringify({ dataDir: cfg.dataDir, redis: { url: redis.url, prefix } }));
    const env = { ...process.env, RENDERKIT_MASTER_KEY: MASTER, RENDERKIT_LOG_LEVEL: "silent" };
    let defaultKey = "";
    const previous = process.env.RENDERKIT_MASTER_KEY;
    process.env.RENDERKIT_MASTER_KEY = MASTER;
    const server = await startServer(cfg, {
      logger: new ConsoleLogger("silent"),
      onProjectCreated: (info) => {
        defaultKey = info.secretKey;
      },
    });
    try {
      expect(defaultKey).toMatch(/^sk_/);
      const made = await run(process.execPath, [CLI, "projects", "create", "--name", "Late", "--json", "--config", file], {
        env,
      });
      const keys = JSON.parse(made.stdout) as { id: string; secretKey: string };
      expect(keys.id).toBe("late");
      // The server has never seen this key: it re-reads the projects from Redis and answers.
      const answer = await api(server.url, "/v1/render/does-not-exist", { key: keys.secretKey });
      expect(answer.status).toBe(404);
      expect(answer.body.status).toBe("not-found");
      const unknown = await api(server.url, "/v1/render/does-not-exist", { key: "sk_not_a_project_key_000000" });
      expect(unknown.status).toBe(401);
      const listed = await run(process.execPath, [CLI, "projects", "list", "--json", "--config", file], { env });
      expect((JSON.parse(listed.stdout) as { id: string }[]).map((p) => p.id).sort()).toEqual(["default", "late"]);
    } finally {
      await server.close();
      if (previous === undefined) delete process.env.RENDERKIT_MASTER_KEY;
      else process.env.RENDERKIT_MASTER_KEY = previous;
    }
  });

  it("a worker started before a project was created signs that project's webhooks with its secret", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}`;
    // The worker writes render addresses with the API's port: a fixed one (port 0 has no address).
    const cfg = await config(prefix, "late-webhook", {
      port: await freePort(),
      drainSeconds: 2,
      webhooks: { timeoutMs: 2_000, scheduleMs: [200, 400, 800] },
    } as Partial<ServerConfig>);
    const previous = process.env.RENDERKIT_MASTER_KEY;
    process.env.RENDERKIT_MASTER_KEY = MASTER;
    const steps: Cleanup = [];
    try {
      const receiver = await listenLocal(() => ({ status: 200, body: "" }));
      steps.push(() => receiver.close());
      let defaultWebhookSecret = "";
      const apiNode = await startServer(cfg, {
        role: "api",
        logger: new ConsoleLogger("silent"),
        onProjectCreated: (info) => {
          defaultWebhookSecret = info.webhookSecret;
        },
      });
      steps.push(() => apiNode.close());
      expect(defaultWebhookSecret).not.toBe("");
      const worker = await startWorker(cfg, { logger: new ConsoleLogger("silent") });
      steps.push(() => worker.close());

      // Both nodes run and have read the projects; a third party (the CLI, another node) adds one.
      const client = await connectRedis(redis.url, "test");
      steps.push(() => closeRedis(client));
      const { store } = await ProjectStore.open(await config(prefix, "creator"), undefined, {
        redis: client,
        masterKey: MASTER,
        createDefault: false,
      });
      const late = await store.create("Late");
      expect(late.project.webhookSecret).not.toBe(defaultWebhookSecret);

      const created = await api(apiNode.url, "/v1/render/async", {
        key: late.secretKey,
        json: { html: "<p>late project</p>", width: 200, height: 100, webhook_url: `${receiver.url}/hook` },
      });
      expect(created.status, created.text).toBe(201);
      const renderId = created.body.renderId as string;
      await vi.waitFor(() => expect(receiver.requests.length).toBeGreaterThan(0), { timeout: 45_000, interval: 100 });
      // Closing the worker ends its deliveries: what arrived until then is all it sent.
      await worker.close();

      expect(receiver.requests).toHaveLength(1);
      const [hook] = receiver.requests;
      const signature = hook?.headers["x-service-signature"] as string;
      expect(verifyWebhookSignature(signature, hook?.body ?? "", late.project.webhookSecret)).toBe(true);
      expect(verifyWebhookSignature(signature, hook?.body ?? "", defaultWebhookSecret)).toBe(false);
      expect(JSON.parse(hook?.body ?? "{}")).toMatchObject({ event: "render.succeeded", renderId });
    } finally {
      try {
        await runCleanup(steps);
      } finally {
        if (previous === undefined) delete process.env.RENDERKIT_MASTER_KEY;
        else process.env.RENDERKIT_MASTER_KEY = previous;
      }
    }
  }, 90_000);
});
