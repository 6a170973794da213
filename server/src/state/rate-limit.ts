import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Project } from "../config/types.js";

/** The verdict on one request. */
export interface RateLimitResult {
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** Whole seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimitsOptions {
  /**
   * An ioredis client: limits are then shared by every server process using that Redis
   * (docs/server-config.md "Rate limits"). While Redis is unreachable each process falls back to
   * its own in-memory limit.
   */
  redis?: unknown;
  /** Prefix of the limiter keys (Redis key names). Default `renderkit:rl`. */
  keyPrefix?: string;
}

/**
 * Per-project rate limits (fixed windows, rate-limiter-flexible), keyed by project id. One
 * limiter per distinct `{ requests, perSeconds }` pair; the pair is part of the key prefix, so a
 * project whose limit changes starts a fresh window instead of inheriting a count kept under
 * other rules.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: unknown;
  private readonly keyPrefix: string;

  constructor(options: RateLimitsOptions = {}) {
    this.redis = options.redis;
    this.keyPrefix = options.keyPrefix ?? "renderkit:rl";
  }

  private limiter(requests: number, perSeconds: number): RateLimiterAbstract {
    const id = `${requests}:${perSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points: requests, duration: perSeconds, keyPrefix: `${this.keyPrefix}:${id}` };
      limiter =
        this.redis === undefined
          ? new RateLimiterMemory(options)
          : new RateLimiterRedis({ ...options, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(options) });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /** Counts one request of `project` and says whether it is within the project's limit. */
  async consume(project: Project): Promise<RateLimitResult> {
    const { requests, perSeconds } = project.rateLimit;
    let verdict: RateLimiterRes;
    let allowed = true;
    try {
      verdict = await this.limiter(requests, perSeconds).consume(project.id);
    } catch (error) {
      // Refusals arrive as a rejected RateLimiterRes; anything else is a store failure.
      if (!(error instanceof RateLimiterRes)) throw error;
      verdict = error;
      allowed = false;
    }
    const resetSeconds = Math.max(allowed ? 0 : 1, Math.ceil(verdict.msBeforeNext / 1000));
    return { allowed, limit: requests, remaining: allowed ? Math.max(0, verdict.remainingPoints) : 0, resetSeconds };
  }

  /**
   * Where `project` stands without counting a request (status lookups carry the headers too).
   * `allowed` is always true: only a counted request is refused.
   */
  async peek(project: Project): Promise<RateLimitResult> {
    const { requests, perSeconds } = project.rateLimit;
    const state = await this.limiter(requests, perSeconds)
      .get(project.id)
      .catch(() => null);
    const used = state?.consumedPoints ?? 0;
    const resetSeconds = state ? Math.max(0, Math.ceil(state.msBeforeNext / 1000)) : 0;
    return { allowed: true, limit: requests, remaining: Math.max(0, requests - used), resetSeconds };
  }

  /** `X-RateLimit-Limit`, `-Remaining`, `-Reset` (seconds), and `Retry-After` when refused. */
  headers(result: RateLimitResult): Record<string, string> {
    const headers: Record<string, string> = {
      "X-RateLimit-Limit": String(result.limit),
      "X-RateLimit-Remaining": String(result.remaining),
      "X-RateLimit-Reset": String(result.resetSeconds),
    };
    if (!result.allowed) headers["Retry-After"] = String(Math.max(1, result.resetSeconds));
    return headers;
  }
}
