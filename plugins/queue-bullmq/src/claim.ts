import type { Redis } from "ioredis";

/**
 * The answer of `claimId`:
 * - `ok`: nobody holds the id; it is reserved for this add.
 * - `finished`: BullMQ still keeps a completed or failed job under this id; it is reserved, and the
 *   caller removes the old job before adding (as the other queues, an id is free once its job ended).
 * - `held`: a job with this id is waiting, delayed, running, or being added by another producer.
 * - `full`: `maxWaiting` jobs are waiting cluster-wide (reservations in flight included).
 */
export type ClaimVerdict = "ok" | "finished" | "held" | "full";

/** The Redis keys the claim reads, all under the queue's own prefix (one cluster slot with a hash-tag prefix). */
export interface ClaimKeys {
  /** Sorted set of ids being added right now, scored by the time their reservation lapses. */
  adding: string;
  /** BullMQ's job hash for this id. */
  job: string;
  /** What BullMQ puts before a job id to name its hash (`<prefix>:<queue>:`). */
  jobPrefix: string;
  completed: string;
  failed: string;
  wait: string;
  delayed: string;
  prioritized: string;
}

/**
 * Runs as one Lua script, so no other command interleaves between the checks and the
 * reservation. The reservation closes the only window left: between this script and BullMQ's
 * own add script, where a second add of the same id would otherwise be silently merged by
 * BullMQ (`addStandardJob` returns the existing id when the job hash exists).
 */
const CLAIM = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now)
if redis.call("ZSCORE", KEYS[1], ARGV[1]) then return "held" end
local function isFinished(id)
  return redis.call("ZSCORE", KEYS[3], id) or redis.call("ZSCORE", KEYS[4], id)
end
local finished = false
if redis.call("EXISTS", KEYS[2]) == 1 then
  if isFinished(ARGV[1]) then finished = true else return "held" end
end
local waiting = redis.call("LLEN", KEYS[5]) + redis.call("ZCARD", KEYS[6]) + redis.call("ZCARD", KEYS[7])
-- Adds in flight count too (no overshoot), until BullMQ holds their job (no double count).
for _, id in ipairs(redis.call("ZRANGE", KEYS[1], 0, -1)) do
  if redis.call("EXISTS", ARGV[4] .. id) == 0 or isFinished(id) then waiting = waiting + 1 end
end
if waiting >= tonumber(ARGV[2]) then return "full" end
redis.call("ZADD", KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call("PEXPIRE", KEYS[1], ARGV[3])
if finished then return "finished" end
return "ok"
`;

/**
 * How long a reservation lasts when its producer dies before releasing it. Far above the time one
 * add can take (each producer command is bounded by the connection's command timeout).
 */
export const CLAIM_TTL_MS = 60_000;

/** Atomically checks the id and the cluster-wide waiting count, and reserves the id. */
export async function claimId(client: Redis, keys: ClaimKeys, id: string, maxWaiting: number): Promise<ClaimVerdict> {
  const order = [keys.adding, keys.job, keys.completed, keys.failed, keys.wait, keys.delayed, keys.prioritized];
  const verdict = await client.eval(CLAIM, order.length, ...order, id, maxWaiting, CLAIM_TTL_MS, keys.jobPrefix);
  if (verdict === "ok" || verdict === "finished" || verdict === "held" || verdict === "full") return verdict;
  throw new Error(`unexpected answer from the claim script: ${String(verdict)}`);
}

/** Ends the reservation once BullMQ holds the job (or the add failed). */
export async function releaseId(client: Redis, keys: ClaimKeys, id: string): Promise<void> {
  await client.zrem(keys.adding, id);
}
