import type { AddressPolicyOptions, Logger, Lookup } from "@renderkit/core";

/** Retry delays after the 1st, 2nd... failed attempt (docs/api.md#webhooks): 5 s, 30 s, 2 min, 10 min, 30 min, 1 h. */
export const DEFAULT_SCHEDULE: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

/** Options shared by `webhookNotifier()` and `new WebhookNotifier()`. */
export interface WebhookOptions {
  /**
   * The project's webhook secret (never its secret key: docs/api.md#decisions). Asked before every
   * attempt, so a rotated secret applies to retries. `undefined` or `""`: the delivery fails at
   * once, recorded with the reason. A rejection (database down) counts as a failed attempt.
   */
  secretFor(projectId: string | undefined): string | undefined | Promise<string | undefined>;
  /** Retry delays in ms; attempts = 1 + its length. Default `DEFAULT_SCHEDULE`. */
  schedule?: readonly number[];
  /** Random spread of each delay, 0 to 1: 0.2 means ±20%. Default 0.2. */
  jitter?: number;
  /** Budget of one attempt (resolve, connect, answer's status line) in ms. Default 10 000. */
  timeoutMs?: number;
  /**
   * Non-public webhook destinations allowed (docs/security.md#decisions). Default: none (plugin:
   * the renderer's `allowPrivateNetworks`).
   */
  allowPrivate?: AddressPolicyOptions["allowPrivate"];
  /** DNS lookup override (tests). Default: the system resolver (plugin: the renderer's `lookup`). */
  lookup?: Lookup;
  /** Posts in flight at once. Default 8. */
  concurrency?: number;
  /** How long delivered and failed records are kept (they recognise late duplicates). Default 30 days. */
  retainMs?: number;
  /**
   * Told the outcome of every delivery attempt this process makes (metrics): delivered, or not
   * (`permanent`: no retry follows). Attempts cut short by `close()` are not reported.
   */
  onAttempt?(attempt: { delivered: boolean; status?: number; permanent: boolean }): void;
}

export interface WebhookNotifierOptions extends WebhookOptions {
  /** Where deliveries are kept: `pending/`, `delivered/`, `failed/`, `tmp/`. */
  dir: string;
  /** Default: JSON lines on stderr (`ConsoleLogger`). */
  logger?: Logger;
}

/** Where deliveries live when API and worker nodes run on several machines. */
export interface WebhookRedisOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...`; never logged (it may carry a password). */
  url: string;
  /** Key prefix of the `webhooks` queue. Default `"renderkit"`. */
  prefix?: string;
  /**
   * How long a worker holds a delivery without renewing its lock before another worker takes it
   * over (its process died), in ms; also the interval of the stall check. Default 30 000.
   */
  lockMs?: number;
}

export interface WebhookTuning {
  schedule: readonly number[];
  jitter: number;
  timeoutMs: number;
  concurrency: number;
  retainMs: number;
}

function check(name: string, value: number, min: number, max: number, integer = true): number {
  if (typeof value !== "number" || Number.isNaN(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new RangeError(
      `webhookNotifier: ${name} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}

/** Redis options with defaults filled in. */
export interface ResolvedRedisOptions {
  url: string;
  prefix: string;
  lockMs: number;
}

/** Checks the `redis` option and fills defaults; throws naming the bad field. */
export function resolveRedis(redis: WebhookRedisOptions): ResolvedRedisOptions {
  const url = redis?.url;
  let protocol: string | undefined;
  try {
    protocol = typeof url === "string" ? new URL(url).protocol : undefined;
  } catch {
    protocol = undefined;
  }
  // The address is not echoed back: it may carry a password.
  if (protocol !== "redis:" && protocol !== "rediss:")
    throw new TypeError("webhookNotifier: redis.url must be a redis:// or rediss:// URL");
  const prefix = redis.prefix ?? "renderkit";
  if (typeof prefix !== "string" || prefix === "" || prefix.length > 100 || /\s/.test(prefix)) {
    throw new TypeError("webhookNotifier: redis.prefix must be a non-empty string of at most 100 characters without spaces");
  }
  return { url: url as string, prefix, lockMs: check("redis.lockMs", redis.lockMs ?? 30_000, 500, 600_000) };
}

/** The delay before the attempt after failed attempt `attempt` (1-based), jittered; `undefined` past the schedule. */
export function retryDelay(tuning: WebhookTuning, attempt: number): number | undefined {
  const delay = tuning.schedule[attempt - 1];
  if (delay === undefined) return undefined;
  return Math.round(delay * (1 + (Math.random() * 2 - 1) * tuning.jitter));
}

/** Checks the numeric options and fills defaults; throws `RangeError` naming the bad option. */
export function resolveTuning(options: WebhookOptions): WebhookTuning {
  if (typeof options?.secretFor !== "function") throw new TypeError("webhookNotifier: secretFor must be a function");
  const schedule = options.schedule ?? DEFAULT_SCHEDULE;
  if (!Array.isArray(schedule) || schedule.length > 100)
    throw new RangeError("webhookNotifier: schedule must be an array of at most 100 delays");
  const day = 24 * 3_600_000;
  return {
    schedule: schedule.map((delay, i) => check(`schedule[${i}]`, delay, 0, 7 * day)),
    jitter: check("jitter", options.jitter ?? 0.2, 0, 1, false),
    timeoutMs: check("timeoutMs", options.timeoutMs ?? 10_000, 1, 600_000),
    concurrency: check("concurrency", options.concurrency ?? 8, 1, 1_000),
    retainMs: check("retainMs", options.retainMs ?? 30 * day, 0, 3_650 * day),
  };
}
