import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRenderer, QUEUE } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../core/dist/settings.js";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { registerPlugin } from "../../../test/helpers/plugins.js";
import { useRedis } from "../../../test/helpers/redis.js";
import { BullMqQueue, bullmqQueue } from "../dist/index.js";
import { freshQueueName } from "./helpers.js";

const redis = useRedis();
const cleanup = useCleanup();

describe("bullmqQueue options", () => {
  it("fills defaults", () => {
    const queue = new BullMqQueue({ connection: "redis://127.0.0.1:6379" });
    expect(queue.name).toBe("bullmq");
    expect(queue.durable).toBe(true);
    expect(queue.options).toMatchObject({
      queueName: "renders",
      prefix: "renderkit",
      maxWaiting: 100,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1_000,
      keepCompletedSeconds: 3_600,
      keepFailedSeconds: 86_400,
    });
  });

  it("refuses bad options with an error naming the option, when the factory is called", () => {
    const connection = "redis://127.0.0.1:6379";
    expect(() => bullmqQueue(undefined as never)).toThrow(/options are required/);
    expect(() => bullmqQueue({} as never)).toThrow(/connection/);
    expect(() => bullmqQueue({ connection: "http://example.com" })).toThrow(/redis:\/\//);
    expect(() => bullmqQueue({ connection: "not a url" })).toThrow(/connection/);
    expect(() => bullmqQueue({ connection: { keyPrefix: "x:" } })).toThrow(/keyPrefix/);
    expect(() => bullmqQueue({ connection, queueName: "a:b" })).toThrow(/queueName/);
    expect(() => bullmqQueue({ connection, prefix: "" })).toThrow(/prefix/);
    expect(() => bullmqQueue({ connection, maxWaiting: 0 })).toThrow(/maxWaiting/);
    expect(() => bullmqQueue({ connection, lockDurationMs: 10 })).toThrow(/lockDurationMs/);
    expect(() => bullmqQueue({ connection, stalledIntervalMs: 1.5 })).toThrow(/stalledIntervalMs/);
    expect(() => bullmqQueue({ connection, maxStalledCount: -1 })).toThrow(/maxStalledCount/);
    expect(() => bullmqQueue({ connection, keepCompletedSeconds: Number.NaN })).toThrow(/keepCompletedSeconds/);
    expect(() => bullmqQueue({ connection, keepFailedSeconds: -5 })).toThrow(/keepFailedSeconds/);
    expect(() => bullmqQueue({ connection, logger: {} as never })).toThrow(/logger/);
    expect(bullmqQueue({ connection: { host: "127.0.0.1", port: 6379 } }).name).toBe("@renderkit/queue-bullmq");
  });
});

describe("bullmqQueue plugin", () => {
  it("registers a BullMqQueue under QUEUE, with maxWaiting and logger from the renderer unless given", async () => {
    const settings = resolveSettings({ maxQueued: 7 });
    const logger = new RecordingLogger();
    const [entry] = registerPlugin(bullmqQueue({ connection: redis.url }), settings, logger);
    expect(entry?.token).toBe(QUEUE);
    const queue = entry?.value as BullMqQueue;
    cleanup.push(() => queue.close());
    expect(queue).toBeInstanceOf(BullMqQueue);
    expect(queue.options.maxWaiting).toBe(7);
    expect(queue.options.logger).toBe(logger);
    const given = registerPlugin(bullmqQueue({ connection: redis.url, maxWaiting: 3 }), settings).map(
      (e) => e.value as BullMqQueue,
    );
    expect(given.map((q) => q.options.maxWaiting)).toEqual([3]);
  });

  it("is started and closed by the renderer", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "renderkit-bullmq-"));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const renderer = await createRenderer({
      dataDir,
      logger: new RecordingLogger(),
      plugins: [bullmqQueue({ connection: redis.url, queueName: freshQueueName() })],
    });
    cleanup.push(() => renderer.close(1_000));
    expect(await renderer.queueCounts()).toEqual({ waiting: 0, active: 0 });
    await renderer.close(1_000);
    await expect(renderer.queueCounts()).rejects.toMatchObject({ code: "ServiceUnavailable" });
  });
});
