import { join } from "node:path";
import { createRenderer, definePlugin, type Logger, type PluginManifest, QUEUE, type Renderer, STORAGE } from "@renderkit/core";
import { FsQueue } from "@renderkit/core/internal";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { markdownFormat } from "@renderkit/format-markdown";
import { svgFormat } from "@renderkit/format-svg";
import { videoFormats } from "@renderkit/format-video";
import { webhookNotifier } from "@renderkit/notifier-webhook";
import type { Redis } from "ioredis";
import { needsRedis, s3StorageOptions } from "../config/scale.js";
import type { ServerConfig } from "../config/types.js";
import type { ProjectStore } from "../projects/store.js";
import { RenderStore } from "../state/file-records.js";
import { MemoryProjectLoad, type ProjectLoad } from "../state/load.js";
import { RateLimits } from "../state/rate-limit.js";
import type { RenderRecords } from "../state/records.js";
import { RedisProjectLoad } from "../state/redis-load.js";
import { RedisRenderRecords } from "../state/redis-records.js";
import { Destinations } from "./destinations.js";
import { serverJobSecrets } from "./job-secrets.js";
import { loadPlugins } from "./load-plugins.js";
import { projectRunGate } from "./run-gate.js";
import type { Role, WebhookAttempts } from "./types.js";

export interface ComposeOptions {
  role: Role;
  logger: Logger;
  /** Public base address of the API (render and status addresses). */
  baseUrl: string;
  projects: ProjectStore;
  /** The shared-state connection (required with `config.redis`); the caller closes it after `close()`. */
  redis?: Redis;
  /** Plugins given by an embedding program, after those of the config file. */
  plugins?: readonly PluginManifest[];
}

/** The parts of one renderkit process, and how to stop them. */
export interface Composed {
  renderer: Renderer;
  /** Webhook delivery attempts of this process, for metrics. */
  webhooks: WebhookAttempts;
  records: RenderRecords;
  load: ProjectLoad;
  limits: RateLimits;
  destinations: Destinations;
  /** Stops rendering (running renders get `drainMs`), then closes every part. */
  close(drainMs: number): Promise<void>;
}

/** Registers `plugin` unless a plugin before it (a third-party one) already filled `token`. */
const unlessTaken = (token: typeof QUEUE | typeof STORAGE, plugin: PluginManifest): PluginManifest => ({
  name: `${plugin.name} (default)`,
  register(context) {
    const taken = token === QUEUE ? context.container.isRegistered(QUEUE) : context.container.isRegistered(STORAGE);
    if (!taken) return plugin.register(context);
  },
});

const fsQueue = definePlugin((dir: string) => ({
  name: "@renderkit/server/fs-queue",
  register({ container, settings }) {
    container.register(QUEUE, { useValue: new FsQueue(dir, { maxWaiting: settings.maxQueued }) });
  },
}));

/**
 * Queue, storage and webhooks of this mode: files in one process, or Redis and S3 shared by many.
 * The BullMQ and S3 plugins are loaded only when configured: a server on files never needs them
 * (they cost a server ~150 ms and ~12 MB of memory at start).
 */
async function modePlugins(
  config: ServerConfig,
  role: Role,
  projects: ProjectStore,
  webhookAttempts: WebhookAttempts,
): Promise<PluginManifest[]> {
  const { redis, storage, webhooks } = config;
  const out: PluginManifest[] = [];
  if (redis) {
    const { bullmqQueue } = await import("@renderkit/queue-bullmq");
    const { url, prefix, lockDurationMs, stalledIntervalMs } = redis;
    out.push(
      unlessTaken(
        QUEUE,
        bullmqQueue({ connection: url, prefix, lockDurationMs, stalledIntervalMs, maxWaiting: config.maxQueued }),
      ),
    );
  } else {
    out.push(unlessTaken(QUEUE, fsQueue(join(config.dataDir, "queue"))));
  }
  if (storage.kind === "s3") {
    const { s3Storage } = await import("@renderkit/storage-s3");
    out.push(unlessTaken(STORAGE, s3Storage(s3StorageOptions(storage))));
  }
  // Final events happen where renders run: an API-only node has nothing to notify.
  if (role !== "api") {
    out.push(
      webhookNotifier({
        // A project made after this process started (on another node): read the projects again.
        secretFor: async (projectId) => {
          if (!projectId) return undefined;
          if (!projects.byId(projectId)) await projects.reload();
          return projects.byId(projectId)?.webhookSecret;
        },
        dir: join(config.dataDir, "webhooks"),
        timeoutMs: webhooks.timeoutMs,
        schedule: webhooks.scheduleMs,
        onAttempt: (attempt) => webhookAttempts.listener?.(attempt),
        ...(redis ? { redis: { url: redis.url, prefix: redis.prefix, lockMs: redis.lockDurationMs } } : {}),
      }),
    );
  }
  return out;
}

/**
 * Builds the parts of a process for its role. Without `redis` there is one process per data
 * directory (the caller holds its lock) and `api`/`worker` roles are refused; with it, the
 * queue (BullMQ), records, rate limits, per-project load and webhooks live in Redis.
 */
export async function compose(config: ServerConfig, options: ComposeOptions): Promise<Composed> {
  const { role, logger, baseUrl, projects } = options;
  if (!config.redis && role !== "all") {
    throw needsRedis(role === "api" ? "serve --role api" : "worker");
  }
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch((e: unknown) => logger.warn("close failed", { error: String(e) }));
  };
  try {
    const redis = config.redis ? options.redis : undefined;
    if (config.redis && !redis) throw new Error("compose: config.redis is set, give options.redis");
    const ttlMs = config.renderTtlDays * 86_400_000;
    const prefix = config.redis?.prefix ?? "renderkit";
    const records: RenderRecords = redis
      ? new RedisRenderRecords(redis, prefix, ttlMs, logger)
      : new RenderStore(join(config.dataDir, "records"), ttlMs, logger);
    cleanups.push(async () => {
      await records.flush();
      await records.close?.();
    });
    const load: ProjectLoad = redis ? new RedisProjectLoad(redis, prefix) : new MemoryProjectLoad();
    const limits = new RateLimits(redis ? { redis, keyPrefix: `${prefix}:rl` } : {});
    const webhookAttempts: WebhookAttempts = {};
    const destinations = new Destinations(projects, config, baseUrl, logger);
    // A worker generates no master key: one of its own would open nothing the API nodes sealed.
    const masterKey = await projects.sharedMasterKey(role !== "worker");
    if (!masterKey) {
      logger.warn(
        "no master key on this worker (RENDERKIT_MASTER_KEY or <dataDir>/master.key): renders with caller secrets (authorization, proxy, headers, cookies, presigned upload addresses) fail here; give it the RENDERKIT_MASTER_KEY of the API nodes",
      );
    }
    cleanups.push(() => destinations.close());
    const plugins = [
      ...(await loadPlugins(config.plugins)),
      ...(options.plugins ?? []),
      playwright({ reusePages: config.reusePages ?? config.concurrency }),
      puppeteer({ reusePages: config.reusePages ?? config.concurrency }),
      imageFormats(),
      markdownFormat(),
      svgFormat(),
      videoFormats(),
      ...(await modePlugins(config, role, projects, webhookAttempts)),
    ];
    const renderer = await createRenderer({
      plugins,
      logger,
      dataDir: config.dataDir,
      baseUrl,
      allowPrivateNetworks: config.allowPrivateNetworks,
      concurrency: config.concurrency,
      maxQueued: config.maxQueued,
      egress: config.egress,
      renderTtlSeconds: ttlMs / 1000,
      adblock: config.adblock,
      worker: role !== "api",
      finalEvent: (renderId) => records.finalEvent(renderId),
      // The record and the project's queue share: an end neither lost nor counted twice.
      record: async (event) => {
        await Promise.all([records.apply(event), load.apply(event)]);
      },
      destination: destinations.resolve,
      jobSecrets: serverJobSecrets(masterKey),
      // A render whose project was disabled while it waited or ran does not run on, or store.
      runGate: projectRunGate(projects),
    });
    const sweeper = setInterval(() => void records.sweep().catch(() => undefined), 3_600_000);
    sweeper.unref();
    return {
      renderer,
      webhooks: webhookAttempts,
      records,
      load,
      limits,
      destinations,
      async close(drainMs) {
        clearInterval(sweeper);
        await renderer.close(drainMs);
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
