import type { Logger, PluginManifest, Renderer } from "@renderkit/core";
import { handleSignals } from "./cli/signals.js";
import { ConfigError } from "./config/error.js";
import { needsRedis } from "./config/scale.js";
import type { ServerConfig } from "./config/types.js";
import { createServerLogger } from "./observability/logging.js";
import { ProjectStore } from "./projects/store.js";
import { type Composed, compose } from "./renderer/compose.js";
import { closeRedis, connectRedis } from "./state/redis-client.js";

export interface RunningWorker {
  renderer: Renderer;
  /** Stops taking renders; running ones get `drainSeconds`, then go back to the queue for another worker. */
  close(): Promise<void>;
}

export interface WorkerOptions {
  logger?: Logger;
  /** Install SIGTERM/SIGINT handlers that drain and exit (the CLI does). */
  handleSignals?: boolean;
  /** Plugins of the embedding program, after the config file's `plugins`. */
  plugins?: readonly PluginManifest[];
}

/** The API's public address as workers write it into `renderUrl`: `baseUrl`, else `http://host:port`. */
export function workerBaseUrl(config: ServerConfig): string {
  if (config.baseUrl) return config.baseUrl.replace(/\/+$/, "");
  if (config.port === 0) {
    throw new ConfigError("renderkit worker needs baseUrl (the API's public address) when port is 0");
  }
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

/**
 * Starts a worker process: renders from the shared queue (BullMQ on `config.redis`), records
 * their states, delivers webhooks. It serves no HTTP: render addresses point at the API nodes
 * (`baseUrl`), which read the same records and storage.
 */
export async function startWorker(config: ServerConfig, options: WorkerOptions = {}): Promise<RunningWorker> {
  const logger = options.logger ?? createServerLogger({ level: config.logLevel });
  // Redis first: it is what a single node's config lacks, and asking for baseUrl would point the operator the wrong way.
  if (!config.redis) throw needsRedis("worker");
  const baseUrl = workerBaseUrl(config);
  if (!config.baseUrl) {
    logger.warn("no baseUrl: render addresses name this machine's host and port; set baseUrl to the API's public address", {
      baseUrl,
    });
  }
  const redis = await connectRedis(config.redis.url, "worker");
  let parts: Composed;
  let projects: ProjectStore;
  try {
    // Projects are read, never created here: the API node that starts first makes the default one.
    ({ store: projects } = await ProjectStore.open(config, logger, { createDefault: false, redis }));
    parts = await compose(config, { role: "worker", logger, baseUrl, projects, redis, plugins: options.plugins });
  } catch (error) {
    await closeRedis(redis);
    throw error;
  }
  logger.info("renderkit worker started", {
    concurrency: config.concurrency,
    storage: config.storage.kind,
    engines: parts.renderer.engines,
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info("draining", { seconds: config.drainSeconds });
      await parts.close(config.drainSeconds * 1000);
      await closeRedis(redis);
      logger.info("stopped");
    })();
    return closing;
  };
  if (options.handleSignals) handleSignals(close, projects, logger);
  return { renderer: parts.renderer, close };
}
