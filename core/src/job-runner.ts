import { attemptBudget, checkCapabilities, runAttempt } from "./attempt.js";
import type { AttemptDeps } from "./attempt-plan.js";
import { attemptTimer, globalTimeoutError } from "./attempt-timer.js";
import type { FinalRenderEvent, RenderResult } from "./contracts/events.js";
import type { RenderJobInfo } from "./contracts/job.js";
import { JobNotDone, type Queue, type QueueJob } from "./contracts/queue.js";
import { RenderError, toRenderError } from "./errors.js";
import { openSecretOptions } from "./job-secrets.js";
import { AddressPolicy } from "./network/address-policy.js";
import type { EngineRegistry, FormatterRegistry } from "./registry.js";
import type { RenderEvents } from "./render-events.js";
import type { RenderJobData } from "./render-job.js";
import type { RenderWaiters } from "./render-waiters.js";
import { askRunGate } from "./run-gate.js";
import { raceSignal } from "./util/timeout.js";

/** What the job runner takes of the renderer's parts: what each attempt needs, and where it runs. */
export interface JobRunnerParts extends AttemptDeps {
  engines: EngineRegistry;
  formatters: FormatterRegistry;
  queue: Queue;
}

/**
 * Runs a queued render to its end (the queue's handler): asks the run gate, opens the sealed
 * options, runs attempts and retries within `global_timeout`, and ends the render once, as
 * succeeded or failed; a redelivered render that already ended is told to the notifiers again
 * instead of rendered twice. Every end is recorded and notified through the render's events and
 * answers a waiting `render()` caller.
 */
export class JobRunner {
  private readonly basePolicy: AddressPolicy;

  constructor(
    private readonly parts: JobRunnerParts,
    private readonly events: RenderEvents,
    private readonly waiters: RenderWaiters,
  ) {
    this.basePolicy = new AddressPolicy({
      allowPrivate: parts.settings.allowPrivateNetworks,
      lookup: parts.settings.lookup,
      logger: parts.logger,
    });
  }

  /** Runs a job through its attempts. */
  async run(job: QueueJob<RenderJobData>, signal: AbortSignal): Promise<void> {
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
      this.waiters.settle(await this.events.finish(ended, info));
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
    // Redelivered by a durable queue after the process died mid-attempt (docs/reliability.md,
    // "The server is killed"): the status shows `retrying`.
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
        this.waiters.settle(
          await this.events.finish({ type: "render.succeeded", renderId: job.id, result, startTime, endTime }, info),
        );
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
    this.waiters.settle(recorded, recorded === event ? failure : undefined);
  }
}
