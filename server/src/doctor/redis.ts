import { Redis } from "ioredis";
import { redactRedisUrl } from "../state/redis-client.js";
import { type Check, type CheckContext, type DoctorCheck, fail, message, ok, warn } from "./types.js";

/** BullMQ 6.7 refuses Redis older than this (`RedisConnection.minimumVersion`). */
export const REDIS_MIN_VERSION = "5.0.0";
/** BullMQ 6.7 warns below this (`RedisConnection.recommendedMinimumVersion`). */
export const REDIS_RECOMMENDED_VERSION = "6.2.0";

const NAME = "redis";
const URL_SETTING = "redis.url in the config file, or RENDERKIT_REDIS_URL";

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (dotted numbers; suffixes ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(".").map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The fields of `INFO` this check reads. */
function parseInfo(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0 && !line.startsWith("#")) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** What to do about a connection error: a wrong password reads differently from a closed port. */
function connectFix(error: string, address: string): string {
  if (/WRONGPASS|NOAUTH|\bAUTH\b|invalid (username|password)/.test(error))
    return `put the right user and password in ${URL_SETTING}`;
  return `start Redis at ${address} (Debian: apt-get install redis-server), or fix ${URL_SETTING}; check that it listens on that interface (bind) and that no firewall is in the way`;
}

/**
 * Connects to `config.redis.url` once, without retries (an answer now is the point): PING, the
 * server version against BullMQ's minimum and recommendation, and the eviction policy, which
 * must be `noeviction` or Redis may silently drop queued renders. Only the redacted address is
 * ever printed.
 */
export const redisCheck: Check = {
  name: NAME,
  timeoutFix: `check that the address in ${URL_SETTING} is a Redis server and that no firewall drops the packets`,
  async run(context: CheckContext) {
    const redis = context.config.redis;
    if (!redis) return [];
    const address = redactRedisUrl(redis.url);
    const client = new Redis(redis.url, {
      lazyConnect: true,
      connectionName: "renderkit-doctor",
      connectTimeout: context.timeoutMs,
      commandTimeout: context.timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    // Without a listener the event would crash the process. Kept: connect() itself only says
    // "Connection is closed", the event names the cause (ECONNREFUSED, ETIMEDOUT, WRONGPASS).
    let lastError: Error | undefined;
    client.on("error", (error: Error) => {
      lastError = error;
    });
    // A server that accepts and never answers leaves connect() waiting on its ready check: end it.
    const abort = () => client.disconnect();
    context.signal.addEventListener("abort", abort, { once: true });
    try {
      try {
        await client.connect();
        const pong = await client.ping();
        if (pong !== "PONG") throw new Error(`PING answered ${pong}`);
      } catch (error) {
        const why = lastError && lastError !== error ? `${message(lastError)} (${message(error)})` : message(error);
        return [fail(NAME, `Redis at ${address} is unreachable: ${why}`, connectFix(why, address))];
      }
      let info: string;
      try {
        info = await client.info();
      } catch (error) {
        return [
          warn(
            NAME,
            `${address} answers PING but not INFO (${message(error)}): its version and eviction policy are unknown`,
            `allow INFO for this user (ACL), or check by hand: version ${REDIS_RECOMMENDED_VERSION} or newer, maxmemory-policy noeviction`,
          ),
        ];
      }
      return describe(parseInfo(info), address);
    } finally {
      context.signal.removeEventListener("abort", abort);
      await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
      client.disconnect();
    }
  },
};

/** The report lines of a reachable server's `INFO`. */
function describe(info: Map<string, string>, address: string): DoctorCheck[] {
  // Valkey and Dragonfly report their own version; BullMQ checks versions of Redis only.
  const [product, version] = info.has("valkey_version")
    ? ["Valkey", info.get("valkey_version")]
    : info.has("dragonfly_version")
      ? ["Dragonfly", info.get("dragonfly_version")]
      : ["Redis", info.get("redis_version")];
  const out: DoctorCheck[] = [];
  const seen = `${address}: ${product} ${version ?? "(version unknown)"}`;
  const upgrade = `upgrade Redis to ${REDIS_RECOMMENDED_VERSION} or newer (Debian 12 ships 7.0)`;
  if (product !== "Redis" || version === undefined) out.push(ok(NAME, seen));
  else if (compareVersions(version, REDIS_MIN_VERSION) < 0) {
    out.push(fail(NAME, `${seen}: the queue (BullMQ) needs Redis ${REDIS_MIN_VERSION} or newer`, upgrade));
  } else if (compareVersions(version, REDIS_RECOMMENDED_VERSION) < 0) {
    out.push(warn(NAME, `${seen}: the queue (BullMQ) recommends Redis ${REDIS_RECOMMENDED_VERSION} or newer`, upgrade));
  } else out.push(ok(NAME, seen));
  const policy = info.get("maxmemory_policy");
  if (policy === undefined) {
    out.push(ok(NAME, "maxmemory-policy not reported by the server (cannot check that it is noeviction)"));
  } else if (policy !== "noeviction") {
    out.push(
      warn(
        NAME,
        `maxmemory-policy is ${policy}: when memory runs out Redis evicts keys, and queued renders and their records vanish`,
        "redis-cli CONFIG SET maxmemory-policy noeviction (and `maxmemory-policy noeviction` in redis.conf to keep it after a restart)",
      ),
    );
  } else out.push(ok(NAME, "maxmemory-policy noeviction"));
  return out;
}
