import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONFIG_KEYS,
  ConfigError,
  checkConfig,
  defaultConfig,
  ENV_VARIABLES,
  envName,
  loadConfig,
} from "../dist/config/index.js";

const SECRET = "sk_env_secret_0123456789abcdef";
const PROJECTS = [{ id: "envy", secretKey: SECRET, publishableKey: "pk_env_envy", webhookSecret: "whsec_env_0123456789abcdef" }];

/**
 * A value for every variable and what it must become, read at the key path. Needed env (e.g. the
 * s3 kind for a bucket field) goes in `with`. A variable without a sample fails the walk below.
 */
const SAMPLES: Record<string, { text: string; expected: unknown; with?: Record<string, string> }> = {
  port: { text: "9191", expected: 9191 },
  host: { text: "0.0.0.0", expected: "0.0.0.0" },
  baseUrl: { text: "https://render.example", expected: "https://render.example" },
  dataDir: { text: "/tmp/rk-env-data", expected: "/tmp/rk-env-data" },
  allowPrivateNetworks: { text: "127.0.0.1:3000, 10.0.0.0/8", expected: ["127.0.0.1:3000", "10.0.0.0/8"] },
  projects: {
    text: JSON.stringify(PROJECTS),
    expected: [expect.objectContaining({ id: "envy", publishableKey: "pk_env_envy" })],
  },
  concurrency: { text: "7", expected: 7 },
  maxQueued: { text: "333", expected: 333 },
  maxQueuedPerProject: { text: "44", expected: 44 },
  reusePages: { text: "0", expected: 0 },
  warmup: { text: "false", expected: false },
  maxBodyBytes: { text: "2048", expected: 2048 },
  redirectAfter: { text: "12", expected: 12 },
  maxRedirectAfter: { text: "120", expected: 120 },
  renderTtlDays: { text: "0.5", expected: 0.5 },
  drainSeconds: { text: "0", expected: 0 },
  engine: { text: "puppeteer", expected: "puppeteer" },
  "rateLimit.requests": { text: "5", expected: 5 },
  "rateLimit.perSeconds": { text: "7", expected: 7 },
  "egress.maxBytes": { text: "10485760", expected: 10_485_760 },
  "egress.maxConnections": { text: "128", expected: 128 },
  "webhooks.timeoutMs": { text: "2500", expected: 2500 },
  "webhooks.scheduleMs": { text: "100, 200,300", expected: [100, 200, 300] },
  "adblock.lists": {
    text: "https://lists.example/a.txt,local.txt",
    expected: ["https://lists.example/a.txt", resolve("local.txt")],
  },
  "adblock.refreshSeconds": { text: "3600", expected: 3600 },
  "redis.url": { text: "redis://:pw@127.0.0.1:6390/0", expected: "redis://:pw@127.0.0.1:6390/0" },
  "redis.prefix": { text: "rk-env", expected: "rk-env", with: { RENDERKIT_REDIS_URL: "redis://127.0.0.1:6390" } },
  "redis.lockDurationMs": { text: "5000", expected: 5000, with: { RENDERKIT_REDIS_URL: "redis://127.0.0.1:6390" } },
  "redis.stalledIntervalMs": { text: "900", expected: 900, with: { RENDERKIT_REDIS_URL: "redis://127.0.0.1:6390" } },
  "storage.kind": { text: "s3", expected: "s3", with: { RENDERKIT_STORAGE_BUCKET: "renders-env" } },
  "storage.bucket": { text: "renders-env", expected: "renders-env", with: { RENDERKIT_STORAGE_KIND: "s3" } },
  "storage.region": {
    text: "eu-west-3",
    expected: "eu-west-3",
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env" },
  },
  "storage.endpoint": {
    text: "http://127.0.0.1:4569",
    expected: "http://127.0.0.1:4569",
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env" },
  },
  "storage.forcePathStyle": {
    text: "true",
    expected: true,
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env" },
  },
  "storage.accessKeyId": {
    text: "AKIAENV",
    expected: "AKIAENV",
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env", RENDERKIT_STORAGE_SECRET_ACCESS_KEY: "s3cr3t-env" },
  },
  "storage.secretAccessKey": {
    text: "s3cr3t-env",
    expected: "s3cr3t-env",
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env", RENDERKIT_STORAGE_ACCESS_KEY_ID: "AKIAENV" },
  },
  "storage.publicBaseUrl": {
    text: "https://cdn.example",
    expected: "https://cdn.example",
    with: { RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env" },
  },
  plugins: { text: "renderkit-plugin-a, /opt/plugins/b.mjs", expected: ["renderkit-plugin-a", "/opt/plugins/b.mjs"] },
  logLevel: { text: "warn", expected: "warn" },
  "metrics.enabled": { text: "true", expected: true },
  "metrics.token": { text: "metrics-token-0123456789", expected: "metrics-token-0123456789" },
};

/** The fields an object key accepts, from the checker itself: its "is not a known key (known: ...)" refusal. */
function nestedKeys(key: string): string[] {
  try {
    checkConfig({ [key]: { __probe__: 1 } });
  } catch (error) {
    const known = (error as Error).message.match(/^\S+ is not a known key \(known: ([^)]*)\)/);
    if (known?.[1]) return known[1].split(", ").map((field) => `${key}.${field}`);
  }
  return [];
}

/** Key paths of every leaf of the defaults and every field the checker accepts (absent defaults too). */
function configLeaves(): string[] {
  const leaves = new Set<string>();
  const walk = (value: unknown, path: string) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key);
    } else leaves.add(path);
  };
  walk(defaultConfig(), "");
  for (const key of CONFIG_KEYS) {
    const fields = nestedKeys(key);
    if (fields.length > 0) {
      leaves.delete(key);
      for (const field of fields) leaves.add(field);
    } else if (![...leaves].some((leaf) => leaf.startsWith(`${key}.`))) leaves.add(key);
  }
  return [...leaves];
}

const at = (config: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], config);

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("every config key has an environment override", () => {
  it("walks the defaults and the checker's keys: each leaf has a variable named RENDERKIT_<KEY> and documented", async () => {
    const docs = await readFile(new URL("../../docs/server-config.md", import.meta.url), "utf8");
    const byKey = new Map(ENV_VARIABLES.map((v) => [v.key, v]));
    const leaves = configLeaves();
    expect(leaves).toContain("adblock.refreshSeconds");
    expect(leaves).toContain("baseUrl");
    expect(leaves).toContain("storage.secretAccessKey");
    expect(leaves).toContain("redis.stalledIntervalMs");
    for (const leaf of leaves) {
      // A leaf is covered by its own variable, or by a variable of a whole key (`projects`).
      const covered = [...byKey.keys()].some((key) => key === leaf || leaf.startsWith(`${key}.`));
      expect(covered, `config key ${leaf} has no environment variable`).toBe(true);
    }
    for (const v of ENV_VARIABLES) {
      expect(v.name).toBe(envName(v.key));
      expect(docs, `${v.name} is not in docs/server-config.md`).toMatch(new RegExp(`\\| \`${v.key}\` +\\| \`${v.name}\``));
      expect(Object.keys(SAMPLES), `no sample value for ${v.name} in this test`).toContain(v.key);
    }
    expect(envName("maxQueued")).toBe("RENDERKIT_MAX_QUEUED");
    expect(envName("adblock.refreshSeconds")).toBe("RENDERKIT_ADBLOCK_REFRESH_SECONDS");
  });

  it.each(ENV_VARIABLES.map((v) => [v.name, v] as const))("%s sets its key", async (name, v) => {
    const sample = SAMPLES[v.key];
    if (!sample) throw new Error(`no sample for ${name}`);
    const config = await loadConfig({ env: { ...sample.with, [name]: ` ${sample.text} ` } });
    expect(at(config, v.key)).toEqual(sample.expected);
    expect(at(defaultConfig(), v.key)).not.toEqual(sample.expected);
  });

  it("a bad value gets the config file's message, naming the variable", async () => {
    expect((await rejection(loadConfig({ env: { RENDERKIT_CONCURRENCY: "lots" } }))).message).toBe(
      "concurrency must be a positive integer (at most 256) (from environment variable RENDERKIT_CONCURRENCY)",
    );
    expect((await rejection(loadConfig({ env: { RENDERKIT_MAX_QUEUED: "0" } }))).message).toBe(
      "maxQueued must be a positive integer (at most 1000000) (from environment variable RENDERKIT_MAX_QUEUED)",
    );
    expect((await rejection(loadConfig({ env: { RENDERKIT_ADBLOCK_REFRESH_SECONDS: "5" } }))).message).toBe(
      "adblock.refreshSeconds must be an integer from 60 to 31536000 (from environment variable RENDERKIT_ADBLOCK_REFRESH_SECONDS)",
    );
    expect(
      (
        await rejection(
          loadConfig({
            env: { RENDERKIT_STORAGE_FORCE_PATH_STYLE: "yes", RENDERKIT_STORAGE_KIND: "s3", RENDERKIT_STORAGE_BUCKET: "b-env" },
          }),
        )
      ).message,
    ).toBe("storage.forcePathStyle must be true or false (from environment variable RENDERKIT_STORAGE_FORCE_PATH_STYLE)");
    expect((await rejection(loadConfig({ env: { RENDERKIT_BASE_URL: "ftp://x" } }))).message).toBe(
      "baseUrl must be an http(s) address without query, fragment or credentials (from environment variable RENDERKIT_BASE_URL)",
    );
    // A nested field that cannot stand alone names what was set.
    expect((await rejection(loadConfig({ env: { RENDERKIT_REDIS_PREFIX: "p" } }))).message).toBe(
      "redis.url must be a redis:// or rediss:// address (from environment variable RENDERKIT_REDIS_PREFIX)",
    );
  });

  it("secrets given through the environment never appear in errors or in the serialised config", async () => {
    const badProjects = JSON.stringify([{ ...PROJECTS[0], secretKey: `${SECRET} with space` }]);
    const bad = await rejection(loadConfig({ env: { RENDERKIT_PROJECTS: badProjects } }));
    expect(bad.message).toContain("RENDERKIT_PROJECTS");
    expect(bad.message).not.toContain(SECRET);
    const broken = await rejection(loadConfig({ env: { RENDERKIT_PROJECTS: `[{"secretKey": "${SECRET}"` } }));
    expect(broken.message).toBe("environment variable RENDERKIT_PROJECTS is not valid JSON");
    const token = await rejection(loadConfig({ env: { RENDERKIT_METRICS_TOKEN: "short secret" } }));
    expect(token.message).toContain("RENDERKIT_METRICS_TOKEN");
    expect(token.message).not.toContain("short secret");
    const config = await loadConfig({
      env: {
        RENDERKIT_PROJECTS: JSON.stringify(PROJECTS),
        RENDERKIT_STORAGE_KIND: "s3",
        RENDERKIT_STORAGE_BUCKET: "b-env",
        RENDERKIT_STORAGE_ACCESS_KEY_ID: "AKIAENV",
        RENDERKIT_STORAGE_SECRET_ACCESS_KEY: "s3cr3t-env-value",
      },
    });
    const text = JSON.stringify(config);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("s3cr3t-env-value");
    expect(config.projects[0]?.secretKey).toBe(SECRET);
  });

  it("a nested variable replaces one field: the file keeps the others; env wins over the file, flags over env", async () => {
    const base = await loadConfig({ env: { RENDERKIT_RATE_LIMIT_REQUESTS: "9" } });
    expect(base.rateLimit).toEqual({ requests: 9, perSeconds: 60 });
    const layered = await loadConfig({ env: { RENDERKIT_PORT: "4321", PORT: "5555" }, overrides: { port: 0 } });
    expect(layered.port).toBe(0);
    expect((await loadConfig({ env: { RENDERKIT_PORT: "4321", PORT: "5555" } })).port).toBe(4321);
    expect((await loadConfig({ env: { PORT: "5555" } })).port).toBe(5555);
    expect((await loadConfig({ env: { RENDERKIT_ADBLOCK_LISTS: "[]" } })).adblock.lists).toEqual([]);
    expect((await loadConfig({ env: { RENDERKIT_ALLOW_PRIVATE_NETWORKS: "true" } })).allowPrivateNetworks).toBe(true);
  });
});
