import type { AttemptDeps, AttemptPlan } from "./attempt-plan.js";
import type { RenderDestination } from "./contracts/destination.js";
import type { Engine } from "./contracts/engine.js";
import type { FormatSpec, Formatter } from "./contracts/formatter.js";
import type { PageSettings } from "./contracts/page-settings.js";
import type { RenderOptions } from "./contracts/render-options.js";
import { RenderError } from "./errors.js";
import { renderTtlSeconds } from "./options/catalogue-output.js";
import { preparationBudgetMs, preparePage } from "./page/prepare.js";
import { pageSettings, pageTarget } from "./page/settings.js";
import type { AdBlocker } from "./prepare/adblock/index.js";
import type { FormatterRegistry } from "./registry.js";
import { renderAddress } from "./render-address.js";
import { beforeStore } from "./run-gate.js";
import type { RendererSettings } from "./settings.js";
import { SIDE_FILES, sideRenders } from "./side-renders.js";
import { storeOrFail } from "./store-failure.js";
import { withTimeout } from "./util/timeout.js";

export interface AttemptOutcome {
  key: string;
  size: number;
  bandwidth: number;
  renderUrl: string;
  path?: string;
  /** Where the file went when not to the renderer's storage (`RenderDestination.location`). */
  location?: Record<string, unknown>;
  extras: Record<string, unknown>;
}

/** Checks that the engine can do what the format needs; a clear error instead of a wrong output. */
export function checkCapabilities(engine: Engine, format: FormatSpec): void {
  const missing = format.requires.filter((c) => !engine.capabilities.has(c));
  if (missing.length > 0) {
    throw new RenderError(
      "EngineResponseNotOkError",
      `The ${engine.name} engine cannot produce ${format.format} (it lacks ${missing.join(", ")})`,
      { details: { option: "engine" } },
    );
  }
}

/**
 * How long one attempt may take before its stall guard aborts it: the page's own time limits
 * (`timeout`, `delay`, two `wait_timeout`s) plus 15 s, at least `attemptTimeoutMs`, plus what the
 * format and the page preparation need on top.
 */
export function attemptBudget(options: RenderOptions, settings: RendererSettings, formatters: FormatterRegistry): number {
  let extra = 0;
  let spec: FormatSpec | undefined;
  try {
    const entry = formatters.get(options.format);
    spec = entry.spec;
    extra = entry.formatter.extraTimeMs?.(options, spec) ?? 0;
  } catch {
    // An unknown format fails inside the attempt with its own error.
  }
  const page = options.timeout + options.delay + options.waitTimeout * 2 + 15_000;
  return Math.max(settings.attemptTimeoutMs, page) + extra + preparationBudgetMs(options, spec);
}

/**
 * One attempt: open, prepare, format, store. The page is closed on every path. Side files an
 * attempt stored before failing are removed: their keys are random, so the next attempt does
 * not replace them, and nothing would name them (the cookie file holds credentials).
 */
export async function runAttempt(plan: AttemptPlan, deps: AttemptDeps, signal: AbortSignal): Promise<AttemptOutcome> {
  const stored: string[] = [];
  try {
    return await attempt(plan, deps, signal, stored);
  } catch (error) {
    for (const key of stored) {
      await deps.storage
        .delete(key)
        .catch((failure: unknown) =>
          deps.logger.warn("removing a failed attempt's side file failed", { renderId: plan.renderId, error: String(failure) }),
        );
    }
    throw error;
  }
}

async function attempt(plan: AttemptPlan, deps: AttemptDeps, signal: AbortSignal, stored: string[]): Promise<AttemptOutcome> {
  const { options, engine, formatter, format } = plan;
  // Resolved before the page opens: a destination that cannot work fails the render at once.
  const destination: RenderDestination | undefined =
    options.useS3 || options.s3PresignedUrl !== undefined
      ? await deps.settings.destination?.({ renderId: plan.renderId, options, job: plan.job, format })
      : undefined;
  let adblock: AdBlocker | undefined;
  if (options.blockAds) {
    adblock = await deps.adblock?.blocker();
    if (!adblock) {
      // Rendering without the blocking asked for would be a silent no-op: the render fails instead.
      throw new RenderError(
        "EngineResponseNotOkError",
        "block_ads: no ad filter list could be loaded on this server (see its log); the render was not made without ad blocking",
        { details: { option: "block_ads" } },
      );
    }
  }
  const settings: PageSettings = {
    ...pageSettings(options, plan.policy, adblock),
    ...formatter.pageSettings?.(options, format),
    ...(options.saveResourceInfo ? { recordResources: true } : {}),
    egressLimits: deps.settings.egress,
    isolationKey: plan.job?.projectId ?? "",
  };
  const t0 = performance.now();
  const session = await engine.open(pageTarget(options), settings, signal);
  const t1 = performance.now();
  let t2 = t1;
  let t3 = t1;
  let body: Awaited<ReturnType<Formatter["render"]>>;
  let bandwidth: number;
  let side: Record<string, unknown> = {};
  // A stalled step (a page script that never settles, a printer stuck behind a busy page) takes no
  // signal: closing the page when the attempt is aborted makes it fail, so `finally` runs.
  const closeOnAbort = () =>
    void withTimeout(session.close(), 5_000).catch((error: unknown) =>
      deps.logger.warn("closing a stalled page failed", { renderId: plan.renderId, error: String(error) }),
    );
  signal.addEventListener("abort", closeOnAbort, { once: true });
  try {
    await preparePage(session, options, signal, {
      format,
      logger: deps.logger,
      adblock,
      renderId: plan.renderId,
      maxPixelHeight: formatter.maxPixelHeight?.(options, format),
    });
    t2 = performance.now();
    side = await sideRenders(session, plan, deps, plan.side ?? { side: () => undefined }, signal, stored);
    body = await formatter.render(session, { renderId: plan.renderId, format, options, logger: deps.logger, signal });
    bandwidth = session.bytesReceived();
    t3 = performance.now();
  } finally {
    signal.removeEventListener("abort", closeOnAbort);
    await withTimeout(session.close(), 5_000).catch((error: unknown) =>
      deps.logger.warn("closing a page failed", { renderId: plan.renderId, error: String(error) }),
    );
  }
  // `ttl`: this render's lifetime (checked against the server's before queueing).
  const ttlSettings = { ...deps.settings, renderTtlSeconds: renderTtlSeconds(options, deps.settings) };
  const expiresAt = Date.now() + ttlSettings.renderTtlSeconds * 1000;
  const meta = { contentType: format.contentType, expiresAt, storageClass: options.s3Storageclass };
  let key = `${plan.renderId}.${format.extension}`;
  let size: number;
  let address: { url: string; path?: string };
  await beforeStore(deps.settings, plan);
  const store = (put: () => Promise<{ size: number }>) => storeOrFail(put, body.body, deps.logger, plan.renderId);
  if (destination) {
    ({ size } = await store(() => destination.put(body.body, meta)));
    key = destination.key;
    address = { url: destination.url };
  } else {
    ({ size } = await store(() => deps.storage.put(key, body.body, meta)));
    address = await renderAddress(deps.storage, ttlSettings, key);
  }
  const ms = (a: number, b: number) => Math.round(b - a);
  deps.logger.debug("render phases", {
    renderId: plan.renderId,
    open: ms(t0, t1),
    prepare: ms(t1, t2),
    format: ms(t2, t3),
    store: ms(t3, performance.now()),
  });
  // Rendered in the format a side file asks for: the side file is the render itself.
  for (const { kind, option, field } of SIDE_FILES) if (options[option] && format.sideRender === kind) side[field] = address.url;
  return {
    key,
    size,
    bandwidth,
    renderUrl: address.url,
    path: address.path,
    location: destination?.location,
    extras: { ...side, ...body.extras },
  };
}
