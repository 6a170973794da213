import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { NOTIFIER } from "@renderkit/core";
import { BullMqWebhookNotifier, webhookNotifier } from "@renderkit/notifier-webhook";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../core/dist/settings.js";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { registerPlugin } from "../../../test/helpers/plugins.js";
import { freePort, useRedis } from "../../../test/helpers/redis.js";
import { freshPrefix } from "./bullmq-helpers.js";
import { receiver, SECRET, succeeded, tempDir, waitFor } from "./helpers.js";

const PEERS_CHECK = fileURLToPath(new URL("./fixtures/optional-peers-check.mjs", import.meta.url));

const redis = useRedis();
const cleanup = useCleanup();

describe("webhookNotifier({ redis })", () => {
  it("checks the redis option when the factory is called, never echoing the address", () => {
    const secretFor = () => SECRET;
    expect(() => webhookNotifier({ secretFor, redis: { url: "http://user:pw@host" } })).toThrow(/redis\.url/);
    expect(() => webhookNotifier({ secretFor, redis: { url: "not a url" } })).toThrow(/redis\.url/);
    expect(() => webhookNotifier({ secretFor, redis: { url: "http://user:pw@host" } })).not.toThrow(/pw/);
    expect(() => webhookNotifier({ secretFor, redis: { url: "redis://h", prefix: "" } })).toThrow(/redis\.prefix/);
    expect(() => webhookNotifier({ secretFor, redis: { url: "redis://h", lockMs: 10 } })).toThrow(/redis\.lockMs/);
    expect(() => webhookNotifier({ secretFor, redis: { url: "rediss://h:6380/2", prefix: "rk" } })).not.toThrow();
  });

  it("registers a BullMqWebhookNotifier (prefix renderkit by default) that delivers with the renderer's address policy", async () => {
    const dataDir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const settings = resolveSettings({ dataDir, allowPrivateNetworks: [`127.0.0.1:${rx.port}`] });
    const registered = registerPlugin(
      webhookNotifier({ secretFor: () => SECRET, schedule: [], redis: { url: redis.url } }),
      settings,
    );
    expect(registered).toHaveLength(1);
    expect(registered[0]?.token).toBe(NOTIFIER);
    const notifier = registered[0]?.value as BullMqWebhookNotifier;
    cleanup.push(() => notifier.close());
    expect(notifier).toBeInstanceOf(BullMqWebhookNotifier);
    expect(notifier.prefix).toBe("renderkit");
    expect(notifier.delivers).toBe(true);

    const renderId = `r-plugin-${freshPrefix()}`;
    await notifier.notify(succeeded(renderId, { projectId: "p", webhookUrl: rx.url() }));
    await waitFor(async () => (await notifier.state(renderId)) === "delivered");
    expect(rx.hits.map((h) => h.verified)).toEqual([true]);
  });

  it("deliver: false registers a notifier that only enqueues", async () => {
    const dataDir = await tempDir(cleanup);
    const plugin = webhookNotifier({ secretFor: () => SECRET, redis: { url: redis.url, prefix: freshPrefix() }, deliver: false });
    const notifier = registerPlugin(plugin, resolveSettings({ dataDir }))[0]?.value as BullMqWebhookNotifier;
    cleanup.push(() => notifier.close());
    expect(notifier.delivers).toBe(false);
  });

  it("the file mode never loads bullmq or ioredis; the Redis mode loads both", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [PEERS_CHECK, `redis://127.0.0.1:${await freePort()}`], {
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      fileMode: [],
      redisMode: ["bullmq", "ioredis"],
      kinds: ["WebhookNotifier", "BullMqWebhookNotifier"],
    });
  });
});
