import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createNetServer } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger, PluginManifest, Renderer } from "@renderkit/core";
import { toNodeHandler } from "h3";
import type { Redis } from "ioredis";
import { listen } from "listhen";
import { createApp } from "./app.js";
import { handleSignals } from "./cli/signals.js";
import { needsRedis } from "./config/scale.js";
import type { ServerConfig } from "./config/types.js";
import type { AppContext } from "./http/context.js";
import { createServerLogger } from "./observability/logging.js";
import { ProjectStore } from "./projects/store.js";
import { compose } from "./renderer/compose.js";
import { lockDataDir } from "./state/data-dir-lock.js";
import { closeRedis, connectRedis } from "./state/redis-client.js";

export interface RunningServer {
  /** Base address the server listens on. */
  url: string;
  renderer: Renderer;
  /** Drains (no new renders, running ones finish within `drainSeconds`, queued ones stay on disk) and stops. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Called once listening, with the base address. */
  onListen?(url: string): void;
  /** Print the keys of a project created on first start (default: to stdout). */
  onProjectCreated?(info: { id: string; secretKey: string; publishableKey: string; webhookSecret: string }): void;
  /** Install SIGTERM/SIGINT handlers that drain and exit (the CLI does; embedders decide). */
  handleSignals?: boolean;
  /** `all` (default): API and renders in this process; `api`: the API only, workers render (needs redis). */
  role?: "all" | "api";
  /** Plugins of the embedding program (engines, formats, storage...), after the config file's `plugins`. */
  plugins?: readonly PluginManifest[];
}

/** A free TCP port on `host` (for port 0). */
async function freePort(host: string): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, host, () => resolve());
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

/**
 * Requests Node refuses before the app sees them (headers too large, a malformed request line or
 * Content-Length) get the API's error body too, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const reason = status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request";
  const message =
    status === 431
      ? "The request headers are too large"
      : status === 408
        ? "The request took too long"
        : "Malformed HTTP request";
  const code = status === 431 ? "HeadersTooLarge" : status === 408 ? "TimedOutError" : "BadRequest";
  const body = JSON.stringify({ error: { message, code }, requestId: `req_${randomUUID()}` });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Starts the server, listening with listhen on `config.host:config.port`: on embedded defaults
 * (both engines, every format, file storage, a durable file queue and webhooks, one process per
 * data directory), or with `redis` as an API node of a shared queue (`role: "api"`) or API and
 * worker in one (`role: "all"`), with S3 storage when `storage.kind` is `s3`.
 */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createServerLogger({ level: config.logLevel });
  if (!config.redis && options.role === "api") throw needsRedis("serve --role api");
  // File mode: the data directory's queue and records belong to this process alone. Redis mode:
  // one shared-state connection for projects, records, limits and load, closed last.
  const redis = config.redis ? await connectRedis(config.redis.url, options.role ?? "all") : undefined;
  const release = redis ? () => closeRedis(redis) : await lockDataDir(config.dataDir);
  try {
    return await start(config, options, logger, release, redis);
  } catch (error) {
    await release();
    throw error;
  }
}

async function start(
  config: ServerConfig,
  options: StartOptions,
  logger: Logger,
  release: () => Promise<void>,
  redis: Redis | undefined,
): Promise<RunningServer> {
  const { store: projects, created } = await ProjectStore.open(config, logger, { redis });
  if (created) {
    const info = {
      id: created.project.id,
      secretKey: created.secretKey,
      publishableKey: created.project.publishableKey,
      webhookSecret: created.project.webhookSecret,
    };
    if (options.onProjectCreated) options.onProjectCreated(info);
    else {
      process.stdout.write(
        `renderkit: created the default project "${info.id}"; its keys are shown once:\n` +
          `  secret key:       ${info.secretKey}\n  publishable key:  ${info.publishableKey}\n  webhook secret:   ${info.webhookSecret}\n`,
      );
    }
  }
  // Listen first: the port decides the base address renders are served from. listhen reads 0 as
  // "its default", so a free port is picked here for 0.
  const wanted = config.port === 0 ? await freePort(config.host) : config.port;
  let handler: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;
  const listener = await listen(
    (req: IncomingMessage, res: ServerResponse) => {
      if (handler) return handler(req, res);
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ error: { message: "Starting up", code: "ServiceUnavailable" }, requestId: "" }));
    },
    {
      port: wanted,
      hostname: config.host,
      showURL: false,
      qr: false,
      public: config.host !== "127.0.0.1" && config.host !== "localhost",
      tunnel: false,
      open: false,
      isProd: true,
      // Our own SIGTERM handling drains the queue; listhen's would exit straight away.
      autoClose: false,
    } as Parameters<typeof listen>[1],
  );
  listener.server.on("clientError", (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket));
  const address = listener.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  if (port !== wanted) {
    await listener.close();
    throw new Error(`Port ${wanted} is in use`);
  }
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  const baseUrl = (config.baseUrl ?? url).replace(/\/+$/, "");
  const role = options.role ?? "all";
  let parts: Awaited<ReturnType<typeof compose>>;
  try {
    parts = await compose(config, { role, logger, baseUrl, projects, redis, plugins: options.plugins });
  } catch (error) {
    await listener.close();
    throw error;
  }
  const { renderer } = parts;
  const ctx: AppContext = {
    renderer,
    store: parts.records,
    projects,
    limits: parts.limits,
    load: parts.load,
    destinations: parts.destinations,
    webhooks: parts.webhooks,
    role,
    config,
    logger,
    baseUrl,
    state: { draining: false, stopWaiting: new AbortController() },
  };
  handler = toNodeHandler(createApp(ctx));
  if (config.warmup && role !== "api") {
    // The engine requests default to (`engine`, else the first installed), in the background: the
    // server answers meanwhile, and a render that comes first waits for the same launch.
    void renderer
      .engine(config.engine)
      .start()
      .catch((error: unknown) => logger.warn("warming up the engine failed", { error: String(error) }));
  }
  logger.info("renderkit server listening", {
    url,
    role,
    mode: config.redis ? "redis" : "file",
    storage: config.storage.kind,
    dataDir: config.dataDir,
  });
  options.onListen?.(url);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      ctx.state.draining = true;
      logger.info("draining", { seconds: config.drainSeconds });
      // Renders first: waiting clients then get their answer (or a 307) before the parts close.
      await renderer.close(config.drainSeconds * 1000);
      ctx.state.stopWaiting.abort();
      await listener.close();
      await parts.close(0);
      await release();
      logger.info("stopped");
    })();
    return closing;
  };
  if (options.handleSignals) handleSignals(close, projects, logger);
  return { url, renderer, close };
}
