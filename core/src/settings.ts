import { join, resolve } from "node:path";
import type { DestinationResolver } from "./contracts/destination.js";
import type { FinalRenderEvent, RenderEvent } from "./contracts/events.js";
import type { EgressLimits } from "./contracts/page-settings.js";
import type { RunGate } from "./contracts/run-gate.js";
import type { JobSecrets } from "./job-secrets.js";
import type { AddressPolicyOptions } from "./network/address-policy.js";
import { DEFAULT_EGRESS_LIMITS } from "./network/egress-limits.js";
import type { AdblockSettings } from "./prepare/adblock/index.js";

export { DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS } from "./network/egress-limits.js";

/** Filter lists `block_ads` uses when the operator names none: EasyList and EasyPrivacy. */
export const DEFAULT_ADBLOCK_LISTS = [
  "https://easylist.to/easylist/easylist.txt",
  "https://easylist.to/easylist/easyprivacy.txt",
] as const;

/** Settings of one renderer. Every field has a safe default. */
export interface RendererSettings {
  /** Where built-in storage and queue keep their files. Default `./.renderkit` (env `RENDERKIT_DATA_DIR`). */
  dataDir: string;
  /** Public base address of the server; render addresses become `<baseUrl>/renders/<key>`. */
  baseUrl?: string;
  /** Non-public destinations renders may reach (docs/security.md#decisions). Default: none. */
  allowPrivateNetworks: AddressPolicyOptions["allowPrivate"];
  /** Renders running at once. Default 2 (the measured sweet spot on 2 cores). */
  concurrency: number;
  /**
   * Whether this renderer runs queued renders. Default true. `false` on an API node of a shared
   * queue (BullMQ): it validates and queues renders, worker processes elsewhere run them.
   */
  worker: boolean;
  /** Renders allowed to wait; more are refused with `ServiceUnavailable`. Default 100. */
  maxQueued: number;
  /** Attempts per render when the engine crashes or stalls. Default 3. */
  maxAttempts: number;
  /** Lifetime of stored renders in seconds. Default 30 days. */
  renderTtlSeconds: number;
  /** Hard cap on one attempt, on top of the page-load `timeout` option. Default 120 s. */
  attemptTimeoutMs: number;
  /**
   * What one render's page may take from the network: `maxBytes` received in all (default 200 MiB;
   * past it the render fails with `HTMLProcessError`) and `maxConnections` open at once (default
   * 256, what Chromium itself opens at most for ordinary requests; more wait for a slot, a bounded
   * number). The server refuses caps below `MIN_EGRESS_CONNECTIONS`.
   */
  egress: EgressLimits;
  /** Filter lists for `block_ads` (default EasyList and EasyPrivacy, cached under `dataDir/adblock`, refreshed daily). */
  adblock: AdblockSettings;
  /** DNS lookup override (tests). */
  lookup?: AddressPolicyOptions["lookup"];
  /**
   * Asked before a queued render runs: the render's final event when its end is already on record
   * (a durable queue redelivers a job whose process died after the end was recorded). The render
   * then does not run again; the event goes to the notifiers once more, which drop what they
   * already hold, so a crash between recording the end and handing it on loses nothing.
   */
  finalEvent?: (renderId: string) => Promise<FinalRenderEvent | undefined>;
  /**
   * Writes the durable record of every state change (the server's render records), before
   * listeners and notifiers hear of it. A final event whose record cannot be written (bounded by
   * 10 s) leaves the render not done: the queue hands it out again (`JobNotDone`), so a render
   * accepted never ends without its end on record.
   */
  record?: (event: RenderEvent) => Promise<void>;
  /**
   * Sends renders that ask for it (`use_s3`, `s3_presigned_url`) somewhere other than the
   * renderer's storage. Without it those options are refused.
   */
  destination?: DestinationResolver;
  /**
   * Seals the caller's secret options (`OptionSpec.secret`: `authorization`, `proxy`, `headers`,
   * `cookies`, the presigned upload addresses) when a render is queued and opens them when it
   * runs, so the queue only ever stores ciphertext for them (`keyedJobSecrets(key)` for AES-256-GCM).
   * Every process running renders needs what the queueing processes sealed with. Without it they
   * are queued as given (the in-memory queue holds nothing at rest).
   */
  jobSecrets?: JobSecrets;
  /**
   * Asked whether a queued render may still run, for what can change while it waits (the server:
   * its project was disabled). Asked before each attempt starts (before `render.started`, before
   * the page opens) and before the attempt stores each file (side files and the render itself).
   * A `RenderError` it throws ends the render `failed` with that code at once: not retried,
   * nothing more stored, one final event. Any other error (its state unreachable, no answer in
   * 10 s) leaves the render not done: the queue hands it out again (`JobNotDone`). Default: none,
   * every render runs.
   */
  runGate?: RunGate;
}

/** The egress caps, defaults filled in; a cap below 1 would refuse every request, so it is an error. */
function egressLimits(input: Partial<EgressLimits> = {}): EgressLimits {
  const limits = { ...DEFAULT_EGRESS_LIMITS, ...input };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`egress.${name} must be a positive integer`);
  }
  return limits;
}

export function resolveSettings(input: Partial<RendererSettings> = {}): RendererSettings {
  const dataDir = resolve(input.dataDir ?? process.env.RENDERKIT_DATA_DIR ?? join(process.cwd(), ".renderkit"));
  return {
    dataDir,
    baseUrl: input.baseUrl?.replace(/\/+$/, ""),
    allowPrivateNetworks: input.allowPrivateNetworks ?? false,
    concurrency: input.concurrency ?? 2,
    worker: input.worker ?? true,
    maxQueued: input.maxQueued ?? 100,
    maxAttempts: input.maxAttempts ?? 3,
    renderTtlSeconds: input.renderTtlSeconds ?? 30 * 24 * 3600,
    attemptTimeoutMs: input.attemptTimeoutMs ?? 120_000,
    egress: egressLimits(input.egress),
    adblock: {
      lists: input.adblock?.lists ?? DEFAULT_ADBLOCK_LISTS,
      refreshSeconds: input.adblock?.refreshSeconds ?? 24 * 3600,
    },
    lookup: input.lookup,
    finalEvent: input.finalEvent,
    record: input.record,
    destination: input.destination,
    jobSecrets: input.jobSecrets,
    runGate: input.runGate,
  };
}
