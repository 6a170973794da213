import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { DEFAULT_ADBLOCK_LISTS, DEFAULT_EGRESS_LIMITS } from "@renderkit/core/internal";
import { DEFAULT_ADBLOCK_REFRESH_SECONDS, LIST_ADDRESS } from "./adblock.js";
import { checkConfig } from "./checks.js";
import { configFromEnv } from "./env.js";
import { ConfigError } from "./error.js";
import { checkTenancy } from "./tenancy.js";
import type { PluginEntry, ServerConfig } from "./types.js";

export { CONFIG_KEYS, checkConfig } from "./checks.js";
export { ENV_VARIABLES, type EnvVariable, envName } from "./env.js";
export { ConfigError, LOG_LEVELS } from "./error.js";
export { sha256Hex } from "./projects.js";

export interface LoadConfigOptions {
  /** JSON config file; default `RENDERKIT_CONFIG`, else none (all defaults). */
  file?: string;
  /** Environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Applied last (command-line flags); validated like the file. */
  overrides?: Partial<ServerConfig>;
}

/** Every default of the configuration (`dataDir` is resolved against the working directory). */
export function defaultConfig(cwd: string = process.cwd()): ServerConfig {
  return {
    port: 8080,
    host: "127.0.0.1",
    dataDir: resolve(cwd, ".renderkit"),
    allowPrivateNetworks: false,
    projects: [],
    concurrency: 2,
    maxQueued: 100,
    maxBodyBytes: 6 * 1024 * 1024,
    redirectAfter: 95,
    maxRedirectAfter: 95,
    renderTtlDays: 30,
    drainSeconds: 30,
    warmup: true,
    egress: { ...DEFAULT_EGRESS_LIMITS },
    rateLimit: { requests: 120, perSeconds: 60 },
    webhooks: { timeoutMs: 10_000 },
    adblock: { lists: [...DEFAULT_ADBLOCK_LISTS], refreshSeconds: DEFAULT_ADBLOCK_REFRESH_SECONDS },
    logLevel: "info",
    storage: { kind: "fs" },
    plugins: [],
    metrics: { enabled: false },
  };
}

/** Filter list entries that are file paths, resolved against `base`; addresses stay as they are. */
function resolveLists(lists: string[], base: string): string[] {
  return lists.map((entry) => (LIST_ADDRESS.test(entry) ? entry : resolve(base, entry)));
}

/** A plugin given as a relative file path (`./x.mjs`, `../x`) is resolved against `base`; package names stay. */
function resolvePluginPath(entry: PluginEntry, base: string): PluginEntry {
  const fix = (specifier: string) => (/^\.\.?[\\/]/.test(specifier) ? resolve(base, specifier) : specifier);
  return typeof entry === "string" ? fix(entry) : { ...entry, module: fix(entry.module) };
}

async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`cannot read config file ${file}: ${reason}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Loads the server configuration. Precedence, lowest first: defaults, the JSON file
 * (`file`, else `RENDERKIT_CONFIG`), environment variables (`ENV_VARIABLES`: `RENDERKIT_<KEY>` for
 * every key, plus `PORT` and `HOST`), `overrides`. A relative `dataDir` or filter
 * list path in the file is resolved against the file's directory, elsewhere against the working directory.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ServerConfig> {
  const env = options.env ?? process.env;
  const fileName = options.file ?? (env.RENDERKIT_CONFIG?.trim() || undefined);
  const config = defaultConfig();
  if (fileName) {
    const file = resolve(fileName);
    const fromFile = checkConfig(await readConfigFile(file), `in ${file}`);
    if (fromFile.dataDir) fromFile.dataDir = resolve(dirname(file), fromFile.dataDir);
    if (fromFile.adblock) fromFile.adblock.lists = resolveLists(fromFile.adblock.lists, dirname(file));
    if (fromFile.plugins) fromFile.plugins = fromFile.plugins.map((entry) => resolvePluginPath(entry, dirname(file)));
    Object.assign(config, fromFile);
  }
  const fromEnv = configFromEnv(env, config);
  // Paths from the environment are resolved against the working directory.
  if (fromEnv.keys.has("adblock.lists") && fromEnv.config.adblock) {
    fromEnv.config.adblock.lists = resolveLists(fromEnv.config.adblock.lists, process.cwd());
  }
  if (fromEnv.config.plugins)
    fromEnv.config.plugins = fromEnv.config.plugins.map((entry) => resolvePluginPath(entry, process.cwd()));
  Object.assign(config, fromEnv.config);
  if (options.overrides) Object.assign(config, checkConfig(options.overrides, "in the overrides"));
  config.dataDir = resolve(config.dataDir);
  if (config.redirectAfter > config.maxRedirectAfter) {
    throw new ConfigError(`redirectAfter must be at most maxRedirectAfter (${config.maxRedirectAfter})`);
  }
  checkTenancy(config);
  return config;
}
