import { attemptBudget, checkCapabilities, runAttempt } from "./attempt.js";
import { attemptTimer, globalTimeoutError } from "./attempt-timer.js";
import type { Engine } from "./contracts/engine.js";
import type { FinalRenderEvent, RenderResult } from "./contracts/events.js";
import type { RenderJobInfo } from "./contracts/job.js";
import type { Logger } from "./contracts/logger.js";
import type { Notifier } from "./contracts/notifier.js";
import type { OptionTable } from "./contracts/option-spec.js";
import { JobNotDone, type Queue, type QueueCounts, type QueueJob } from "./contracts/queue.js";
import type { RenderOptions } from "./contracts/render-options.js";
import type { ByteRange, Storage, StoredObject } from "./contracts/storage.js";
import { ERROR_CODES, type ErrorCode, RenderError, toRenderError } from "./errors.js";
import { openSecretOptions, sealSecretOptions, secretOptionNames } from "./job-secrets.js";
import { AddressPolicy } from "./network/address-policy.js";
import { indexTable, type ParsedOptions, parseOptions } from "./options/parse.js";
import type { AdblockLists } from "./prepare/adblock/index.js";
import type { EngineRegistry, FormatterRegistry } from "./registry.js";
import { RenderEvents, type RenderListener } from "./render-events.js";
import { checkRequest } from "./request-checks.js";
import { askRunGate } from "./run-gate.js";
import type { RendererSettings } from "./settings.js";
import { newRenderId, type RenderOrigin } from "./util/ids.js";
import { raceSignal, withTimeout } from "./util/timeout.js";

/** A recorded error code as the spec's code (records are plain JSON). */
function knownCode(code: string): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "EngineResponseNotOkError";
}

/** What the queue carries for one render (JSON only). */
export interface RenderJobData {
  /** The parsed options, without the secret ones when `sealed` holds them. */
  options: RenderOptions & Record<string, unknown>;
  /**
   * The secret options (`OptionSpec.secret`), sealed by `RendererSettings.jobSecrets` for this
   * render id. Absent when none was given, when the renderer has no `jobSecrets`, and in jobs
   * queued by versions before it: their `options` carry them.
   */
  sealed?: string;
  origin: RenderOrigin;
  /** What the submitter told, carried into events and the destination resolver. */
  job?: RenderJobInfo;
}

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

interface Waiter {
  resolve(result: RenderResult): void;
  reject(error: RenderError): void;
}

/**
 * The embeddable render service: validates requests, queues them, runs attempts on an engine,
 * stores results and reports every state change. Create it with `createRenderer`.
 */
export class Renderer {
  private readonly waiters = new Map<string, Waiter>();
  /** What `parse()` returned, so that `submitParsed` takes nothing that skipped its checks. */
  private readonly parsedHere = new WeakSet<ParsedOptions>();
  private readonly events: RenderEvents;
  private readonly optionIndex: Map<string, string>;
  /** Options a queued job carries sealed (`OptionSpec.secret`). */
  private readonly secretNames: string[];
  private readonly basePolicy: AddressPolicy;
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
    this.basePolicy = new AddressPolicy({
      allowPrivate: parts.settings.allowPrivateNetworks,
      lookup: parts.settings.lookup,
      logger: parts.logger,
    });
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
    await this.parts.queue.start((job, signal) => this.run(job as QueueJob<RenderJobData>, signal), {
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
    const done = new Promise<RenderResult>((resolve, reject) => this.waiters.set(renderId, { resolve, reject }));
    try {
      const { ignored } = await this.submit(input, { ...options, renderId, origin: options.origin ?? "sync" });
      // The server reports them in X-Ignored-Options; a library caller learns of them here.
      if (ignored.length > 0) this.parts.logger.warn("unknown options ignored", { renderId, options: ignored });
    } catch (error) {
      this.waiters.delete(renderId);
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

  /** Runs a job through its attempts (the queue's handler). */
  private async run(job: QueueJob<RenderJobData>, signal: AbortSignal): Promise<void> {
    const { settings, logger } = this.parts;
    // Jobs queued by versions before `job` carry the same fields as `meta`.
    const info = job.data.job ?? (job.data as { meta?: RenderJobInfo }).meta;
    let ended: FinalRenderEvent | undefined;
    try {
      ended = await settings.finalEvent?.(job.id);
    } catch (cause) {
      // Unknown whether it ended: rendering again could end it twice. The queue tries later.
      throw new JobNotDone(`Render ${job.id} is not started: its record could not be read`, 5_000, { cause });
    }
    if (ended) {
      logger.info("a redelivered render had already ended; telling the notifiers again", { renderId: job.id });
      this.settle(await this.events.finish(ended, info));
      return;
    }
    const startTime = Date.now();
    // Asked before anything of this run happens (with the options as queued: the gate needs no
    // secret), also for a job past its last attempt: a render the gate refuses ends with the gate's
    // reason, whatever else befell it.
    const gate = (attempt: number) =>
      askRunGate(settings, { renderId: job.id, options: job.data.options, job: info, attempt, stage: "start" });
    let lastError: RenderError | undefined = await gate(job.attempt);
    const admitted = lastError === undefined;
    const options = admitted ? await this.openOptions(job, startTime, info) : job.data.options;
    if (!options) return;
    // Redelivered by a durable queue after the process died mid-attempt (docs/api.md#states).
    if (admitted && job.attempt > 1 && job.attempt <= settings.maxAttempts) {
      const reason = "The process stopped during the previous attempt";
      await this.events.emit({ type: "render.retrying", renderId: job.id, attempt: job.attempt, reason, at: startTime }, info);
    }
    // `global_timeout`: every attempt and retry of this run, from its start (the queue wait excluded).
    const deadline = options.globalTimeout === undefined ? undefined : startTime + options.globalTimeout;
    for (let attempt = job.attempt; admitted && attempt <= settings.maxAttempts; attempt++) {
      const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now();
      if (left <= 0) {
        lastError = globalTimeoutError(options.globalTimeout ?? 0);
        break;
      }
      // A retry is asked about again: what the gate checks may have changed since the last attempt.
      const refused = attempt > job.attempt ? await gate(attempt) : undefined;
      if (refused) {
        lastError = refused;
        break;
      }
      await this.events.emit({ type: "render.started", renderId: job.id, attempt, at: Date.now() }, info);
      const budget = attemptBudget(options, settings, this.parts.formatters);
      const timer = attemptTimer(budget, left, options.globalTimeout, signal);
      const { controller } = timer;
      try {
        const engine = this.parts.engines.get(options.engine);
        const { formatter, spec } = this.parts.formatters.get(options.format);
        checkCapabilities(engine, spec);
        const side = this.parts.formatters;
        const policy = this.basePolicy.fork();
        const plan = { renderId: job.id, attempt, options, engine, formatter, format: spec, policy, side, job: info };
        // The attempt closes its page on abort; the race lets the render move on even if that hangs.
        const outcome = await raceSignal(runAttempt(plan, this.parts, controller.signal), controller.signal);
        const endTime = Date.now();
        const result: RenderResult = {
          renderId: job.id,
          renderUrl: outcome.renderUrl,
          size: outcome.size,
          renderTime: endTime - startTime,
          queueTime: Math.max(0, startTime - job.enqueuedAt),
          bandwidth: outcome.bandwidth,
          format: spec.format,
          contentType: spec.contentType,
          key: outcome.key,
          ...(outcome.path ? { path: outcome.path } : {}),
          ...(outcome.location ? { location: outcome.location } : {}),
          ...outcome.extras,
        };
        this.settle(await this.events.finish({ type: "render.succeeded", renderId: job.id, result, startTime, endTime }, info));
        return;
      } catch (error) {
        // The render is done but its end is not on record: not an attempt that failed.
        if (error instanceof JobNotDone) throw error;
        lastError =
          controller.signal.aborted && controller.signal.reason instanceof RenderError
            ? controller.signal.reason
            : toRenderError(error);
        if (signal.aborted && this.parts.queue.durable) {
          // Shutdown cut the attempt; a durable queue hands the job out again on the next start.
          logger.info("render interrupted by shutdown; it resumes on the next start", { renderId: job.id });
          return;
        }
        if (signal.aborted) break;
        if (!lastError.retryable || attempt >= settings.maxAttempts) break;
        logger.warn("render attempt failed; retrying", {
          renderId: job.id,
          attempt,
          code: lastError.code,
          reason: lastError.message,
        });
        await this.events.emit(
          { type: "render.retrying", renderId: job.id, attempt: attempt + 1, reason: lastError.message, at: Date.now() },
          info,
        );
      } finally {
        timer.clear();
      }
    }
    const failure =
      lastError ??
      new RenderError(
        "EngineResponseNotOkError",
        job.attempt > settings.maxAttempts ? "The render was interrupted by a restart on every attempt" : "The render failed",
      );
    await this.fail(job.id, failure, startTime, info);
  }

  /**
   * The job's options with its sealed secret options opened, or undefined when they cannot be
   * opened: the render has then failed (`ServiceUnavailable`: a fault of this process's setup, not
   * of the request, and not one that running it again here would mend). The log says why; the
   * caller's answer does not.
   */
  private async openOptions(
    job: QueueJob<RenderJobData>,
    startTime: number,
    info: RenderJobInfo | undefined,
  ): Promise<RenderJobData["options"] | undefined> {
    try {
      return await openSecretOptions(job.data, this.parts.settings.jobSecrets, job.id);
    } catch (error) {
      this.parts.logger.error("cannot open the secret options of a queued render; it fails", {
        renderId: job.id,
        error: error instanceof Error ? error.message : String(error),
      });
      const reason = "The render could not be run: this server cannot read its secret options (a server configuration fault)";
      await this.fail(job.id, new RenderError("ServiceUnavailable", reason), startTime, info);
      return undefined;
    }
  }

  /** Ends a render as failed: records it, tells the notifiers, answers a waiting `render()`. */
  private async fail(renderId: string, failure: RenderError, startTime: number, info: RenderJobInfo | undefined): Promise<void> {
    this.parts.logger.info("render failed", { renderId, code: failure.code, reason: failure.message });
    const failed = { code: failure.code, reason: failure.message, startTime, endTime: Date.now() };
    const event: FinalRenderEvent = { type: "render.failed", renderId, ...failed };
    const recorded = await this.events.finish(event, info);
    this.settle(recorded, recorded === event ? failure : undefined);
  }

  /**
   * Answers a `render()` caller with the outcome on record (which may be another process's);
   * `error` is this attempt's own error when that outcome is its failure (it keeps the details).
   */
  private settle(ended: FinalRenderEvent, error?: RenderError): void {
    const waiter = this.waiters.get(ended.renderId);
    if (!waiter) return;
    this.waiters.delete(ended.renderId);
    if (ended.type === "render.succeeded") waiter.resolve(ended.result);
    else waiter.reject(error ?? new RenderError(knownCode(ended.code), ended.reason));
  }

  /** Stops taking renders, lets running ones finish (up to `timeoutMs`), then closes every part. */
  close(timeoutMs = 30_000): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      const { queue, engines, storage, notifiers, logger } = this.parts;
      await queue.close(timeoutMs).catch((e: unknown) => logger.warn("queue close failed", { error: String(e) }));
      for (const [id, waiter] of this.waiters) {
        waiter.reject(new RenderError("ServiceUnavailable", "The renderer closed before this render ran"));
        this.waiters.delete(id);
      }
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
