import type { Engine } from "./contracts/engine.js";
import type { RenderResult } from "./contracts/events.js";
import type { RenderJobInfo } from "./contracts/job.js";
import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import type { OptionTable } from "./contracts/option-spec.js";
import type { Queue, QueueCounts, QueueJob } from "./contracts/queue.js";
import type { ByteRange, Storage, StoredObject } from "./contracts/storage.js";
import { RenderError } from "./errors.js";
import { JobRunner } from "./job-runner.js";
import { sealSecretOptions, secretOptionNames } from "./job-secrets.js";
import { indexTable, type ParsedOptions, parseOptions } from "./options/parse.js";
import type { AdblockLists } from "./prepare/adblock/index.js";
import type { EngineRegistry, FormatterRegistry } from "./registry.js";
import { RenderEvents, type RenderListener } from "./render-events.js";
import type { RenderJobData } from "./render-job.js";
import { RenderWaiters } from "./render-waiters.js";
import { checkRequest } from "./request-checks.js";
import type { RendererSettings } from "./settings.js";
import { newRenderId, type RenderOrigin } from "./util/ids.js";
import { withTimeout } from "./util/timeout.js";

export interface SubmitOptions {
  /** Use this id instead of a fresh one. */
  renderId?: string;
  origin?: RenderOrigin;
  /** What the render's events, notifiers and destination resolver are told (project, webhook...). */
  job?: RenderJobInfo;
}

export interface RendererParts {
  settings: RendererSettings;
  logger: Logger;
  engines: EngineRegistry;
  formatters: FormatterRegistry;
  storage: Storage;
  queue: Queue;
  notifiers: Notifier[];
  options: OptionTable;
  /** Filter lists for `block_ads`, loaded on first use. */
  adblock?: AdblockLists;
}

/**
 * The embeddable render service: validates requests, queues them, runs attempts on an engine,
 * stores results and reports every state change. Create it with `createRenderer`. The run of a
 * queued render, attempts and retries, is the job runner's (`job-runner.ts`).
 */
export class Renderer {
  private readonly waiters = new RenderWaiters();
  /** What `parse()` returned, so that `submitParsed` takes nothing that skipped its checks. */
  private readonly parsedHere = new WeakSet<ParsedOptions>();
  private readonly events: RenderEvents;
  private readonly optionIndex: Map<string, string>;
  /** Options a queued job carries sealed (`OptionSpec.secret`). */
  private readonly secretNames: string[];
  private readonly runner: JobRunner;
  private sweeper: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly parts: RendererParts) {
    this.optionIndex = indexTable(parts.options);
    this.secretNames = secretOptionNames(parts.options);
    this.events = new RenderEvents({
      notifiers: parts.notifiers,
      logger: parts.logger,
      record: parts.settings.record,
      recorded: parts.settings.finalEvent,
    });
    this.runner = new JobRunner(parts, this.events, this.waiters);
  }

  /** Resolved settings. */
  get settings(): RendererSettings {
    return this.parts.settings;
  }

  /** The option table in force (core options plus plugin options). */
  get optionTable(): OptionTable {
    return this.parts.options;
  }

  /** Formats the installed formatters provide. */
  get formats(): string[] {
    return this.parts.formatters.formats;
  }

  /** Names of the installed engines; the first is the default. */
  get engines(): string[] {
    return this.parts.engines.names;
  }

  /** Engine instances (health checks, stats). */
  engine(name?: string): Engine {
    return this.parts.engines.get(name);
  }

  /** Starts the queue and the storage sweeper. Called by `createRenderer`. */
  async start(): Promise<void> {
    if (this.parts.settings.worker) await this.startWorker();
    const sweep = () =>
      this.parts.storage.sweep?.(Date.now()).catch((e: unknown) => this.parts.logger.warn("sweep failed", { error: String(e) }));
    this.sweeper = setInterval(sweep, 3_600_000);
    this.sweeper.unref();
  }

  private async startWorker(): Promise<void> {
    await this.parts.queue.start((job, signal) => this.runner.run(job as QueueJob<RenderJobData>, signal), {
      concurrency: this.parts.settings.concurrency,
    });
  }

  /** Validates options without rendering; throws `RenderError` with the spec's codes. */
  parse(input: Record<string, unknown>): ParsedOptions {
    const parsed = parseOptions(
      input,
      { table: this.parts.options, formats: this.formats, formatSynonyms: this.parts.formatters.aliases },
      this.optionIndex,
    );
    checkRequest(parsed, this.parts);
    this.parsedHere.add(parsed);
    return parsed;
  }

  /** Subscribes to state changes; returns the unsubscribe function. */
  on(listener: RenderListener): () => void {
    return this.events.on(listener);
  }

  /** Queues a render and returns at once (async renders); follow it with `on()`. */
  async submit(input: Record<string, unknown>, options: SubmitOptions = {}): Promise<{ renderId: string; ignored: string[] }> {
    if (this.closing) throw new RenderError("ServiceUnavailable", "The renderer is shutting down");
    return this.submitParsed(this.parse(input), options);
  }

  /**
   * `submit` for options this renderer's `parse()` returned: a caller that inspects the parsed
   * options before queueing (the server checks plans and addresses) parses once. Anything else is
   * refused (TypeError): it skipped the checks `parse()` makes.
   */
  async submitParsed(parsed: ParsedOptions, options: SubmitOptions = {}): Promise<{ renderId: string; ignored: string[] }> {
    if (this.closing) throw new RenderError("ServiceUnavailable", "The renderer is shutting down");
    if (!this.parsedHere.has(parsed)) throw new TypeError("submitParsed takes what this renderer's parse() returned");
    const renderId = options.renderId ?? newRenderId(options.origin ?? "async");
    // The queue (a file, Redis, a third party's) never holds the caller's credentials in clear.
    const queued = await sealSecretOptions(parsed.options, this.secretNames, this.parts.settings.jobSecrets, renderId).catch(
      (error: unknown) => {
        this.parts.logger.error("cannot seal the secret options of a render; it is refused", { renderId, error: String(error) });
        throw new RenderError(
          "ServiceUnavailable",
          "This server cannot queue renders with secret options (a server configuration fault)",
        );
      },
    );
    const data: RenderJobData = { ...queued, origin: options.origin ?? "async", job: options.job };
    const waited = data.origin !== "async";
    await this.parts.queue.add({ id: renderId, data, attempt: 1, enqueuedAt: Date.now(), waited });
    await this.events.emit({ type: "render.created", renderId, at: Date.now() }, options.job);
    return { renderId, ignored: parsed.ignored };
  }

  /** Renders and waits for the result (sync renders and library use). */
  async render(input: Record<string, unknown>, options: SubmitOptions = {}): Promise<RenderResult> {
    if (!this.parts.settings.worker) {
      // Its waiter would only settle in the process that runs the render.
      throw new RenderError("ServiceUnavailable", "This renderer does not run renders (worker: false); use submit()");
    }
    const renderId = options.renderId ?? newRenderId(options.origin ?? "sync");
    const done = this.waiters.wait(renderId);
    try {
      const { ignored } = await this.submit(input, { ...options, renderId, origin: options.origin ?? "sync" });
      // The server reports them in X-Ignored-Options; a library caller learns of them here.
      if (ignored.length > 0) this.parts.logger.warn("unknown options ignored", { renderId, options: ignored });
    } catch (error) {
      this.waiters.forget(renderId);
      throw error;
    }
    return done;
  }

  /** Renders waiting and running in this renderer's queue (health checks, back-pressure). */
  queueCounts(): Promise<QueueCounts> {
    return this.parts.queue.counts();
  }

  /** Reads a stored render (or a byte range of it). */
  read(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    return this.parts.storage.get(key, range);
  }

  /** A short-lived direct address of a stored render, when the storage signs them (S3); else undefined. */
  async signedUrl(key: string, expiresInSeconds: number): Promise<string | undefined> {
    return this.parts.storage.signedUrl?.(key, expiresInSeconds);
  }

  /** Stops taking renders, lets running ones finish (up to `timeoutMs`), then closes every part. */
  close(timeoutMs = 30_000): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      const { queue, engines, storage, notifiers, logger } = this.parts;
      await queue.close(timeoutMs).catch((e: unknown) => logger.warn("queue close failed", { error: String(e) }));
      this.waiters.rejectAll(() => new RenderError("ServiceUnavailable", "The renderer closed before this render ran"));
      const closers = [
        ...engines.all().map((e) => () => e.close()),
        ...notifiers.map((n) => () => n.close?.()),
        () => storage.close?.(),
        () => this.parts.adblock?.close(),
      ];
      for (const close of closers) {
        await withTimeout(Promise.resolve(close()), 15_000).catch((e: unknown) =>
          logger.warn("close failed", { error: String(e) }),
        );
      }
    })();
    return this.closing;
  }
}
