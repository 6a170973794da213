import type { RenderEvent } from "@renderkit/core";
import type { Redis } from "ioredis";
import type { Project } from "../config/types.js";
import { loadRefusal, type ProjectLoad } from "./load.js";
import { shared } from "./redis-client.js";

/**
 * Reserves a place atomically: drops places older than ARGV[1] (renders whose end was lost),
 * then adds ARGV[3] unless the project already holds ARGV[2]. Returns the places held before,
 * negative (−held − 1) when refused.
 */
const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return -held - 1 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return held
`;

/** A place older than this is taken back (a render cannot wait and run that long). */
const STALE_MS = 24 * 3_600_000;

/**
 * The per-project queue share of API and worker nodes (docs/deployment.md#decisions, "Limits are shared"): a sorted set of
 * render ids per project, `<prefix>:load:<projectId>`. API nodes reserve before queueing;
 * the worker that ends a render releases its place.
 */
export class RedisProjectLoad implements ProjectLoad {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(projectId: string): string {
    return `${this.prefix}:load:${projectId}`;
  }

  async reserve(project: Project, renderId: string, limit: number): Promise<void> {
    const now = Date.now();
    const held = Number(
      await shared(this.redis.eval(RESERVE, 1, this.key(project.id), now - STALE_MS, limit, renderId, now, STALE_MS)),
    );
    if (held < 0) throw loadRefusal(-held - 1, limit);
  }

  async release(projectId: string, renderId: string): Promise<void> {
    await shared(this.redis.zrem(this.key(projectId), renderId));
  }

  async apply(event: RenderEvent): Promise<void> {
    const projectId = event.job?.projectId;
    if (typeof projectId !== "string") return;
    if (event.type === "render.succeeded" || event.type === "render.failed") await this.release(projectId, event.renderId);
  }

  async count(projectId: string): Promise<number> {
    return await shared(this.redis.zcard(this.key(projectId)));
  }
}
