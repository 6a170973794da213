import { checkConfig } from "./checks.js";
import { ConfigError } from "./error.js";
import type { ServerConfig } from "./types.js";

/**
 * Environment overrides of the configuration. Every key (every leaf of a nested key) has one
 * variable: `RENDERKIT_` + the key path in upper snake case, dots as `_`
 * (`maxQueued` → `RENDERKIT_MAX_QUEUED`, `adblock.refreshSeconds` → `RENDERKIT_ADBLOCK_REFRESH_SECONDS`).
 * Values are parsed from text by kind, then checked by the config file's checkers; an error names
 * the variable and never repeats its value.
 */

/**
 * How a variable's text becomes a value. `list`: comma-separated (or a JSON array when it starts
 * with `[`); `integers`: a comma-separated list of integers; `allowList`: `true`, `false` or a list;
 * `json`: a JSON value.
 */
export type EnvKind = "integer" | "number" | "boolean" | "string" | "list" | "integers" | "allowList" | "json";

export interface EnvVariable {
  /** Variable name. */
  name: string;
  /** Configuration key path, e.g. `redis.prefix`. */
  key: string;
  kind: EnvKind;
  /** Holds a key, password or token: documented as such; never printed. */
  secret?: boolean;
  /** Older names still read when `name` is unset (`PORT`, `HOST`). */
  aliases?: string[];
}

/** `adblock.refreshSeconds` → `RENDERKIT_ADBLOCK_REFRESH_SECONDS`. */
export function envName(key: string): string {
  return `RENDERKIT_${key
    .replace(/\./g, "_")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toUpperCase()}`;
}

const v = (key: string, kind: EnvKind, extra: Partial<EnvVariable> = {}): EnvVariable => ({
  name: envName(key),
  key,
  kind,
  ...extra,
});

/** Every environment override, in the order of the configuration reference. */
export const ENV_VARIABLES: readonly EnvVariable[] = [
  v("port", "integer", { aliases: ["PORT"] }),
  v("host", "string", { aliases: ["HOST"] }),
  v("baseUrl", "string"),
  v("dataDir", "string"),
  v("allowPrivateNetworks", "allowList"),
  v("projects", "json", { secret: true }),
  v("concurrency", "integer"),
  v("maxQueued", "integer"),
  v("maxQueuedPerProject", "integer"),
  v("reusePages", "integer"),
  v("warmup", "boolean"),
  v("maxBodyBytes", "integer"),
  v("redirectAfter", "integer"),
  v("maxRedirectAfter", "integer"),
  v("renderTtlDays", "number"),
  v("drainSeconds", "integer"),
  v("egress.maxBytes", "integer"),
  v("egress.maxConnections", "integer"),
  v("engine", "string"),
  v("rateLimit.requests", "integer"),
  v("rateLimit.perSeconds", "integer"),
  v("webhooks.timeoutMs", "integer"),
  v("webhooks.scheduleMs", "integers"),
  v("adblock.lists", "list"),
  v("adblock.refreshSeconds", "integer"),
  v("redis.url", "string", { secret: true }),
  v("redis.prefix", "string"),
  v("redis.lockDurationMs", "integer"),
  v("redis.stalledIntervalMs", "integer"),
  v("storage.kind", "string"),
  v("storage.bucket", "string"),
  v("storage.region", "string"),
  v("storage.endpoint", "string"),
  v("storage.forcePathStyle", "boolean"),
  v("storage.accessKeyId", "string", { secret: true }),
  v("storage.secretAccessKey", "string", { secret: true }),
  v("storage.publicBaseUrl", "string"),
  v("plugins", "list"),
  v("logLevel", "string"),
  v("metrics.enabled", "boolean"),
  v("metrics.token", "string", { secret: true }),
];

/** Text → value; text that does not parse stays text, so the checker's own message applies. */
function parse(raw: string, kind: EnvKind, name: string): unknown {
  const integer = (text: string): unknown => (/^[+-]?\d{1,16}$/.test(text) ? Number(text) : text);
  const json = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      // The parser's message quotes the text, which may hold a key: say only where.
      throw new ConfigError(`environment variable ${name} is not valid JSON`);
    }
  };
  const list = (text: string): unknown =>
    text.startsWith("[")
      ? json(text)
      : text
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean);
  switch (kind) {
    case "integer":
      return integer(raw);
    case "number":
      return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw) ? Number(raw) : raw;
    case "boolean":
      return /^(true|1)$/i.test(raw) ? true : /^(false|0)$/i.test(raw) ? false : raw;
    case "list":
      return list(raw);
    case "integers": {
      const entries = list(raw);
      return Array.isArray(entries) ? entries.map((e) => (typeof e === "string" ? integer(e) : e)) : entries;
    }
    case "allowList":
      return /^(true|false)$/i.test(raw) ? raw.toLowerCase() === "true" : list(raw);
    case "json":
      return json(raw);
    default:
      return raw;
  }
}

/** The variable of `variable` that is set (the name, else an alias), and its trimmed text. */
function read(env: NodeJS.ProcessEnv, variable: EnvVariable): { name: string; raw: string } | undefined {
  for (const name of [variable.name, ...(variable.aliases ?? [])]) {
    const raw = env[name]?.trim();
    if (raw) return { name, raw };
  }
  return undefined;
}

/** A copy of an object with its hidden (non-enumerable) secrets readable as ordinary keys. */
function ownValues(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(value)) out[key] = (value as Record<string, unknown>)[key];
  return out;
}

/** The variable an error message is about: the longest key path the message starts with. */
function culprit(message: string, used: { name: string; key: string }[]): string[] {
  const match = used
    .filter(({ key }) => message.startsWith(key) && /^($|[ .[])/.test(message.slice(key.length)))
    .sort((a, b) => b.key.length - a.key.length)[0];
  return match ? [match.name] : used.map(({ name }) => name);
}

export interface EnvOverrides {
  /** Checked values of the top-level keys the environment sets (nested keys merged into `base`). */
  config: Partial<ServerConfig>;
  /** Key paths set by the environment (e.g. `adblock.lists`), for path resolution. */
  keys: Set<string>;
}

/**
 * Reads every variable of `ENV_VARIABLES` from `env` and checks it like the config file. A nested
 * variable replaces that one field: the rest of the key comes from `base` (defaults and file).
 */
export function configFromEnv(env: NodeJS.ProcessEnv, base: ServerConfig): EnvOverrides {
  const groups = new Map<string, { name: string; key: string; value: unknown }[]>();
  for (const variable of ENV_VARIABLES) {
    const found = read(env, variable);
    if (!found) continue;
    const top = variable.key.split(".")[0] as string;
    const value = parse(found.raw, variable.kind, found.name);
    groups.set(top, [...(groups.get(top) ?? []), { name: found.name, key: variable.key, value }]);
  }
  const config: Record<string, unknown> = {};
  const keys = new Set<string>();
  for (const [top, used] of groups) {
    let candidate: unknown;
    if (used.length === 1 && used[0]?.key === top) candidate = used[0].value;
    else {
      let merged = ownValues(base[top as keyof ServerConfig]);
      // Switching `storage.kind` starts that key afresh: the other kind's fields do not apply.
      const kind = used.find(({ key }) => key === `${top}.kind`);
      if (kind && kind.value !== merged.kind) merged = {};
      for (const { key, value } of used) merged[key.slice(top.length + 1)] = value;
      candidate = merged;
    }
    try {
      Object.assign(config, checkConfig({ [top]: candidate }));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const names = culprit(error.message, used);
      const label = names.length === 1 ? "environment variable" : "environment variables";
      throw new ConfigError(`${error.message} (from ${label} ${names.join(", ")})`);
    }
    for (const { key } of used) keys.add(key);
  }
  return { config: config as Partial<ServerConfig>, keys };
}
