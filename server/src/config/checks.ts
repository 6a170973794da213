import { isIP } from "node:net";
import { DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS } from "@renderkit/core/internal";
import { adblockConfig } from "./adblock.js";
import { ConfigError, LOG_LEVELS } from "./error.js";
import { metricsConfig } from "./metrics.js";
import { pluginEntries } from "./plugins.js";
import { projectsConfig, rateLimitConfig } from "./projects.js";
import { redisConfig, storageConfig } from "./scale.js";
import type { ServerConfig } from "./types.js";
import { boolean, fail, httpAddress, integer, isObject, object, string } from "./values.js";

/**
 * The configuration's validators: `checkConfig` checks a partial configuration (a file, the
 * environment, overrides) key by key. The checkers of the larger keys live beside it, one file
 * each (`projects.ts`, `adblock.ts`, `scale.ts`, `metrics.ts`, `plugins.ts`). `index.ts` loads and
 * merges, and re-exports `checkConfig`.
 */

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

function allowList(value: unknown, path: string): boolean | string[] {
  if (typeof value === "boolean") return value;
  if (!Array.isArray(value))
    return fail(path, "must be true, false or a list of host names, IPs, host:port pairs and CIDR blocks");
  return value.map((entry, i) => {
    const item = string(entry, `${path}[${i}]`, 1, 300, /^\S+$/, "must be a host name, IP, host:port or CIDR block");
    const cidr = item.match(/^([0-9a-fA-F:.]+)\/(\d{1,3})$/);
    if (cidr?.[1] && cidr[2]) {
      const family = isIP(cidr[1]);
      if (family === 0 || Number(cidr[2]) > (family === 4 ? 32 : 128)) fail(`${path}[${i}]`, "is not a valid CIDR block");
    }
    return item;
  });
}

/** One checker per key: a `Record` over `ServerConfig` so a new key cannot be left unchecked. */
const CHECKS: { [K in keyof ServerConfig]-?: (value: unknown, path: string) => ServerConfig[K] } = {
  port: (v, p) => integer(v, p, 0, 65535),
  host: (v, p) => string(v, p, 1, 253, /^[^\s/?#@]+$/, "must be a host name or IP address"),
  baseUrl: httpAddress,
  dataDir: (v, p) => string(v, p, 1, 4096),
  allowPrivateNetworks: allowList,
  projects: projectsConfig,
  concurrency: (v, p) => integer(v, p, 1, 256),
  maxQueued: (v, p) => integer(v, p, 1, 1_000_000),
  maxQueuedPerProject: (v, p) => integer(v, p, 1, 1_000_000),
  reusePages: (v, p) => integer(v, p, 0, 256),
  warmup: (v, p) => boolean(v, p),
  maxBodyBytes: (v, p) => integer(v, p, 1024, 1024 * 1024 * 1024),
  redirectAfter: (v, p) => integer(v, p, 1, 3600),
  maxRedirectAfter: (v, p) => integer(v, p, 1, 3600),
  renderTtlDays: (v, p) =>
    typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 3650
      ? v
      : fail(p, "must be a number of days greater than 0 and at most 3650"),
  drainSeconds: (v, p) => integer(v, p, 0, 3600),
  egress: (v, p) => {
    const e = object(v, p, ["maxBytes", "maxConnections"]);
    return {
      // 1 MiB to 1 TiB; below a megabyte ordinary pages would fail.
      maxBytes:
        e.maxBytes === undefined ? DEFAULT_EGRESS_LIMITS.maxBytes : integer(e.maxBytes, `${p}.maxBytes`, 1_048_576, 2 ** 40),
      // Idle https tunnels hold their slots: a low cap would make pages that used many hosts wait.
      maxConnections:
        e.maxConnections === undefined
          ? DEFAULT_EGRESS_LIMITS.maxConnections
          : integer(e.maxConnections, `${p}.maxConnections`, MIN_EGRESS_CONNECTIONS, 10_000),
    };
  },
  engine: (v, p) => string(v, p, 1, 64, NAME, "must be an engine name such as playwright"),
  rateLimit: rateLimitConfig,
  webhooks: (v, p) => {
    const w = object(v, p, ["timeoutMs", "scheduleMs"]);
    const out: ServerConfig["webhooks"] = {
      timeoutMs: w.timeoutMs === undefined ? 10_000 : integer(w.timeoutMs, `${p}.timeoutMs`, 100, 600_000),
    };
    if (w.scheduleMs !== undefined) {
      if (!Array.isArray(w.scheduleMs) || w.scheduleMs.length > 50)
        fail(`${p}.scheduleMs`, "must be a list of at most 50 delays in milliseconds");
      out.scheduleMs = (w.scheduleMs as unknown[]).map((d, i) => integer(d, `${p}.scheduleMs[${i}]`, 0, 7 * 86_400_000));
    }
    return out;
  },
  adblock: adblockConfig,
  redis: redisConfig,
  storage: storageConfig,
  plugins: pluginEntries,
  metrics: metricsConfig,
  logLevel: (v, p) =>
    typeof v === "string" && (LOG_LEVELS as readonly string[]).includes(v)
      ? v
      : fail(p, `must be one of ${LOG_LEVELS.join(", ")}`),
};

/** Every key the configuration accepts (top level). */
export const CONFIG_KEYS: readonly string[] = Object.keys(CHECKS);

/** Checks a partial configuration (file, overrides): unknown keys and bad values throw `ConfigError`. */
export function checkConfig(input: unknown, where = ""): Partial<ServerConfig> {
  const suffix = where ? ` (${where})` : "";
  try {
    if (!isObject(input)) fail("The configuration", "must be a JSON object");
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
      const check = (CHECKS as Record<string, (v: unknown, p: string) => unknown>)[key];
      if (!check) fail(key, `is not a known configuration key (known: ${Object.keys(CHECKS).join(", ")})`);
      else if (value !== undefined) out[key] = check(value, key);
    }
    return out as Partial<ServerConfig>;
  } catch (error) {
    if (error instanceof ConfigError && suffix) throw new ConfigError(error.message + suffix);
    throw error;
  }
}
