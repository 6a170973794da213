import { EventEmitter } from "node:events";
import { type FinalRenderEvent, type Logger, type RenderEvent, withTimeout } from "@renderkit/core";
import { isSafeId } from "@renderkit/core/internal";
import type { Redis } from "ioredis";
import { endFields, finalEventOf, newRecord, type RenderRecord, type RenderRecords, TERMINAL } from "./records.js";
import { shared } from "./redis-client.js";

/**
 * Applies one event to a render's hash, atomically (docs/deployment.md#decisions, "One end per render"):
 * an ended record never changes again; `created` never overwrites; an event for a record that
 * is missing (expired, or its `created` was lost) starts one from ARGV[3]. Publishes the render
 * id on ARGV[5] when the event ends it. Returns 1 when applied, 0 when refused.
 */
const APPLY = `
local key = KEYS[1]
local kind = ARGV[1]
local status = redis.call('HGET', key, 'status')
if status == 'succeeded' or status == 'failed' then return 0 end
if kind == 'created' and status then return 0 end
if not status then
  local base = cjson.decode(ARGV[3])
  for field, value in pairs(base) do redis.call('HSET', key, field, value) end
  redis.call('PEXPIREAT', key, ARGV[4])
end
local fields = cjson.decode(ARGV[2])
for field, value in pairs(fields) do redis.call('HSET', key, field, value) end
if kind == 'ended' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 1
`;

/** How often a waiting request reads the record in case the pub/sub message was missed. */
const POLL_MS = 2_000;
/** How long the first wait may take to subscribe before it polls instead. */
const SUBSCRIBE_TIMEOUT_MS = 3_000;

type Fields = Record<string, string>;

/** A record's fields as hash strings (JSON for objects). */
function toFields(part: Partial<RenderRecord>): Fields {
  const out: Fields = {};
  for (const [name, value] of Object.entries(part)) {
    if (value === undefined) continue;
    out[name] = typeof value === "object" ? JSON.stringify(value) : String(value);
  }
  return out;
}

function fromFields(hash: Record<string, string>): RenderRecord | undefined {
  if (!hash.renderId || !hash.status) return undefined;
  const num = (name: string) => (hash[name] === undefined ? undefined : Number(hash[name]));
  const record: RenderRecord = {
    renderId: hash.renderId,
    projectId: hash.projectId ?? "",
    status: hash.status as RenderRecord["status"],
    createdAt: num("createdAt") ?? 0,
    attempt: num("attempt") ?? 1,
    expiresAt: num("expiresAt") ?? 0,
  };
  if (hash.result) record.result = JSON.parse(hash.result) as RenderRecord["result"];
  if (hash.reason !== undefined) record.reason = hash.reason;
  if (hash.code !== undefined) record.code = hash.code;
  if (hash.responseType !== undefined) record.responseType = hash.responseType;
  for (const name of ["redirectAfter", "startTime", "endTime"] as const) {
    const value = num(name);
    if (value !== undefined) record[name] = value;
  }
  return record;
}

/**
 * Render records shared by API and worker nodes: a hash per render, `<prefix>:render:<id>`,
 * expiring with the render (docs/deployment.md#where-each-fact-lives). Any node answers any status lookup; a sync wait on any
 * API node wakes on the `<prefix>:ended` channel, with a poll of the record as the fallback.
 */
export class RedisRenderRecords implements RenderRecords {
  private readonly channel: string;
  private readonly waiters = new EventEmitter();
  private subscriber: Promise<Redis> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:ended`;
    this.waiters.setMaxListeners(0);
  }

  private key(renderId: string): string {
    return `${this.prefix}:render:${renderId}`;
  }

  async apply(event: RenderEvent): Promise<void> {
    const base = newRecord(event, this.ttlMs);
    let kind = "update";
    let fields: Partial<RenderRecord> = {};
    if (event.type === "render.created") {
      kind = "created";
      fields = base;
    } else if (event.type === "render.started") {
      fields = event.attempt > 1 ? { attempt: event.attempt, status: "retrying" } : { attempt: event.attempt };
    } else if (event.type === "render.retrying") {
      fields = { attempt: event.attempt, status: "retrying" };
    } else {
      kind = "ended";
      fields = endFields(event);
    }
    const args = [kind, JSON.stringify(toFields(fields)), JSON.stringify(toFields(base)), String(base.expiresAt)];
    await shared(this.redis.eval(APPLY, 1, this.key(event.renderId), ...args, this.channel, event.renderId));
  }

  async get(renderId: string): Promise<RenderRecord | undefined> {
    if (!isSafeId(renderId)) return undefined;
    const hash = await shared(this.redis.hgetall(this.key(renderId)));
    const record = fromFields(hash);
    return record && record.expiresAt > Date.now() ? record : undefined;
  }

  async finalEvent(renderId: string): Promise<FinalRenderEvent | undefined> {
    return finalEventOf(await this.get(renderId));
  }

  /** One subscriber connection per process, opened on the first wait (bounded: a stalled Redis falls back to polling). */
  private subscribe(): Promise<Redis> {
    this.subscriber ??= (async () => {
      const sub = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
      sub.on("error", (error: Error) => this.logger.debug("redis subscriber error", { error: error.message }));
      sub.on("message", (_channel: string, renderId: string) => this.waiters.emit(renderId));
      try {
        await withTimeout(sub.subscribe(this.channel), SUBSCRIBE_TIMEOUT_MS);
        return sub;
      } catch (error) {
        sub.disconnect();
        throw error;
      }
    })().catch((error: unknown) => {
      this.subscriber = undefined;
      throw error;
    });
    return this.subscriber;
  }

  async wait(renderId: string, timeoutMs: number, signal?: AbortSignal): Promise<RenderRecord | undefined> {
    // Subscribed before the first read, so an end between the two is not missed.
    await this.subscribe().catch((error: unknown) =>
      this.logger.warn("redis subscribe failed; waiting by polling", { error: String(error) }),
    );
    // `poked` remembers a message that came while the record was being read.
    let poked = false;
    let woke: () => void = () => undefined;
    const poke = () => {
      poked = true;
      woke();
    };
    this.waiters.on(renderId, poke);
    const end = Date.now() + timeoutMs;
    try {
      for (;;) {
        poked = false;
        const record = await this.get(renderId);
        const left = end - Date.now();
        if (!record || TERMINAL.has(record.status) || left <= 0 || signal?.aborted) return record;
        if (poked) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(left, POLL_MS));
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            resolve();
          }
          woke = done;
          signal?.addEventListener("abort", done, { once: true });
        });
      }
    } finally {
      this.waiters.off(renderId, poke);
    }
  }

  /** Records expire on their own (a TTL per hash). */
  async sweep(): Promise<number> {
    return 0;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    const sub = await this.subscriber?.catch(() => undefined);
    sub?.disconnect();
  }
}
