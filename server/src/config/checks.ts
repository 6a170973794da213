import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { DEFAULT_ADBLOCK_LISTS, DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS } from "@renderkit/core/internal";
import { ConfigError, LOG_LEVELS } from "./error.js";
import { metricsConfig } from "./metrics.js";
import { pluginEntries } from "./plugins.js";
import { projectS3Config } from "./project-s3.js";
import { redisConfig, storageConfig } from "./scale.js";
import type { ProjectConfig, ServerConfig } from "./types.js";
import { boolean, fail, httpAddress, integer, isObject, object, string } from "./values.js";

/**
 * The configuration's validators: `checkConfig` checks a partial configuration (a file, the
 * environment, overrides) key by key. `index.ts` loads and merges, and re-exports `checkConfig`.
 */

/** Printable ASCII without spaces: what fits in `Authorization: Bearer <key>`. */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;
/** URL-unreserved characters: publishable keys appear in render-link paths. */
const PATH_SAFE = /^[A-Za-z0-9._~-]+$/;
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

function rateLimit(value: unknown, path: string): { requests: number; perSeconds: number } {
  const v = object(value, path, ["requests", "perSeconds"]);
  return {
    requests: integer(v.requests, `${path}.requests`, 1, 1_000_000_000),
    perSeconds: integer(v.perSeconds, `${path}.perSeconds`, 1, 31_536_000),
  };
}

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

/** Default of `adblock.refreshSeconds`: lists are downloaded again once a day. */
export const DEFAULT_ADBLOCK_REFRESH_SECONDS = 86_400;
/** An entry of `adblock.lists` naming an address rather than a file. */
export const LIST_ADDRESS = /^[a-z][a-z0-9+.-]+:/i;

/** One filter list: an http(s) address or a file path. The message never repeats the value (it may carry a token). */
function filterList(value: unknown, path: string): string {
  const text = string(value, path, 1, 4096, /^\S(?:.*\S)?$/s, "must be a file path or an http(s) address (1 to 4096 characters)");
  if (!LIST_ADDRESS.test(text) || text.toLowerCase().startsWith("file:")) return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) fail(path, "must be a file path or an http(s) address");
  return text;
}

/** `adblock.lists`: at most 100 entries (the environment variable is split on commas first). */
export function filterLists(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length > 100)
    return fail(path, "must be a list of at most 100 file paths or http(s) addresses");
  return value.map((entry, i) => filterList(entry, `${path}[${i}]`));
}

function adblock(value: unknown, path: string): ServerConfig["adblock"] {
  const v = object(value, path, ["lists", "refreshSeconds"]);
  return {
    lists: v.lists === undefined ? [...DEFAULT_ADBLOCK_LISTS] : filterLists(v.lists, `${path}.lists`),
    refreshSeconds:
      v.refreshSeconds === undefined
        ? DEFAULT_ADBLOCK_REFRESH_SECONDS
        : integer(v.refreshSeconds, `${path}.refreshSeconds`, 60, 31_536_000),
  };
}

const PROJECT_KEYS = [
  "id",
  "name",
  "secretKey",
  "secretKeyHash",
  "publishableKey",
  "webhookSecret",
  "enabled",
  "rateLimit",
  "formats",
  "allowTokenless",
  "legacyLinkTokens",
  "linkFormats",
  "linkMaxAgeSeconds",
  "s3",
] as const satisfies readonly (keyof ProjectConfig)[];

/** A non-empty list of format names (`formats`, `linkFormats`). */
function formatList(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length === 0) return fail(path, "must be a non-empty list of format names");
  return value.map((f, i) => string(f, `${path}[${i}]`, 1, 32, /^[a-z0-9]+$/, "must be a format name such as png"));
}

/** Longest `linkMaxAgeSeconds`: a year. */
export const MAX_LINK_AGE_SECONDS = 31_536_000;

/**
 * A project's render-link fields, the same in the config file and in `projects.json`:
 * `legacyLinkTokens`, `linkFormats`, `linkMaxAgeSeconds`. Absent fields stay absent.
 */
export function linkSettings(
  v: Record<string, unknown>,
  path: string,
): Pick<ProjectConfig, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds"> {
  const out: Pick<ProjectConfig, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds"> = {};
  if (v.legacyLinkTokens !== undefined) out.legacyLinkTokens = boolean(v.legacyLinkTokens, `${path}.legacyLinkTokens`);
  if (v.linkFormats !== undefined) out.linkFormats = formatList(v.linkFormats, `${path}.linkFormats`);
  if (v.linkMaxAgeSeconds !== undefined) {
    out.linkMaxAgeSeconds = integer(v.linkMaxAgeSeconds, `${path}.linkMaxAgeSeconds`, 1, MAX_LINK_AGE_SECONDS);
  }
  return out;
}

function project(value: unknown, path: string): ProjectConfig {
  const v = object(value, path, PROJECT_KEYS);
  const id = string(
    v.id,
    `${path}.id`,
    1,
    64,
    PROJECT_ID,
    "must be 1 to 64 letters, digits, '-' or '_' (starting with a letter or digit)",
  );
  const out: ProjectConfig = {
    id,
    name: v.name === undefined ? id : string(v.name, `${path}.name`, 1, 200),
    publishableKey: string(
      v.publishableKey,
      `${path}.publishableKey`,
      8,
      256,
      PATH_SAFE,
      "must be 8 to 256 letters, digits, '-', '_', '.' or '~'",
    ),
    webhookSecret: string(
      v.webhookSecret,
      `${path}.webhookSecret`,
      16,
      1024,
      undefined,
      "must be a string of at least 16 characters",
    ),
    enabled: v.enabled === undefined ? true : boolean(v.enabled, `${path}.enabled`),
    allowTokenless: v.allowTokenless === undefined ? false : boolean(v.allowTokenless, `${path}.allowTokenless`),
  };
  if ((v.secretKey === undefined) === (v.secretKeyHash === undefined))
    fail(path, "must have exactly one of secretKey or secretKeyHash");
  if (v.secretKey !== undefined) {
    out.secretKey = string(
      v.secretKey,
      `${path}.secretKey`,
      16,
      256,
      TOKEN_CHARS,
      "must be 16 to 256 printable ASCII characters without spaces",
    );
  } else {
    out.secretKeyHash = string(
      v.secretKeyHash,
      `${path}.secretKeyHash`,
      64,
      64,
      HEX64,
      "must be 64 hexadecimal characters (SHA-256)",
    ).toLowerCase();
  }
  if (sha256Hex(out.webhookSecret) === (out.secretKeyHash ?? sha256Hex(out.secretKey ?? ""))) {
    fail(`${path}.webhookSecret`, "must differ from the secret key");
  }
  if (v.rateLimit !== undefined) out.rateLimit = rateLimit(v.rateLimit, `${path}.rateLimit`);
  if (v.formats !== undefined) out.formats = formatList(v.formats, `${path}.formats`);
  Object.assign(out, linkSettings(v, path));
  if (v.s3 !== undefined) out.s3 = projectS3Config(v.s3, `${path}.s3`, id);
  // Secrets stay readable but are not enumerable: logging or serialising the config cannot leak them.
  for (const key of ["secretKey", "webhookSecret"] as const) {
    if (out[key] !== undefined) Object.defineProperty(out, key, { enumerable: false });
  }
  return out;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function projects(value: unknown, path: string): ProjectConfig[] {
  if (!Array.isArray(value)) return fail(path, "must be a list of projects");
  const list = value.map((p, i) => project(p, `${path}[${i}]`));
  const ids = new Map<string, number>();
  const secrets = new Map<string, number>();
  const publishable = new Map<string, number>();
  list.forEach((p, i) => {
    const at = `${path}[${i}]`;
    const hash = p.secretKeyHash ?? sha256Hex(p.secretKey ?? "");
    const seen = (map: Map<string, number>, key: string, field: string) => {
      const first = map.get(key);
      if (first !== undefined) fail(`${at}.${field}`, `is the same as in ${path}[${first}]; it must be unique`);
      map.set(key, i);
    };
    seen(ids, p.id, "id");
    seen(secrets, hash, p.secretKey ? "secretKey" : "secretKeyHash");
    seen(publishable, p.publishableKey, "publishableKey");
  });
  list.forEach((p, i) => {
    // A publishable key is public: if it were also some project's secret key, that key would be public too.
    if (secrets.has(sha256Hex(p.publishableKey))) fail(`${path}[${i}].publishableKey`, "must differ from every secret key");
  });
  return list;
}

/** One checker per key: a `Record` over `ServerConfig` so a new key cannot be left unchecked. */
const CHECKS: { [K in keyof ServerConfig]-?: (value: unknown, path: string) => ServerConfig[K] } = {
  port: (v, p) => integer(v, p, 0, 65535),
  host: (v, p) => string(v, p, 1, 253, /^[^\s/?#@]+$/, "must be a host name or IP address"),
  baseUrl: httpAddress,
  dataDir: (v, p) => string(v, p, 1, 4096),
  allowPrivateNetworks: allowList,
  projects,
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
  rateLimit,
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
  adblock,
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
