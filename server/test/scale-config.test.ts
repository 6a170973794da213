import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../dist/config/index.js";

/**
 * The scale-out keys of the configuration (issue 10: `redis`, `storage`, `projects[].s3`,
 * `plugins`), loaded as an operator writes them: a JSON file, environment variables, overrides.
 */

const PROJECT = {
  id: "alpha",
  secretKey: "sk_test_alpha_0123456789abcdef",
  publishableKey: "pk_test_alpha",
  webhookSecret: "whsec_alpha_0123456789abcdef",
};
const STORAGE_SECRET = "storage-secret-ABCDEF0123456789";
const PROJECT_SECRET = "project-secret-ZYXWVU9876543210";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-scale-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** Writes `content` as a config file in its own sub-directory of the test directory. */
async function configFile(content: unknown): Promise<string> {
  const sub = join(dir, `case-${n++}`);
  await mkdir(sub, { recursive: true });
  const file = join(sub, "renderkit.json");
  await writeFile(file, JSON.stringify(content));
  return file;
}

async function refused(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

/** The message of loading `content` from a file; it must start with `path` (or a key under it) and name the file. */
async function fileError(content: unknown, path: string): Promise<string> {
  const file = await configFile(content);
  const message = await refused(loadConfig({ file, env: {} }));
  // The path itself, or a key under it (`storage.bucket` under `storage`).
  const named = message.startsWith(path) && [" ", ".", "["].includes(message.charAt(path.length));
  expect(named, `"${message}" names the key path ${path}`).toBe(true);
  expect(message).toContain(`(in ${file})`);
  return message;
}

describe("redis", () => {
  it("is absent by default (file mode)", async () => {
    expect((await loadConfig({ env: {} })).redis).toBeUndefined();
  });

  it("from the file: the url, with defaults for prefix, lockDurationMs and stalledIntervalMs", async () => {
    const file = await configFile({ redis: { url: "redis://cache.internal:6379/2" } });
    const config = await loadConfig({ file, env: {} });
    expect(config.redis).toEqual({
      url: "redis://cache.internal:6379/2",
      prefix: "renderkit",
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
    });
  });

  it("from the file: every key kept as written", async () => {
    const redis = {
      url: "rediss://user:pw@cache.internal:6380",
      prefix: "rk.prod",
      lockDurationMs: 5_000,
      stalledIntervalMs: 500,
    };
    const config = await loadConfig({ file: await configFile({ redis }), env: {} });
    expect(config.redis).toEqual(redis);
  });

  it("RENDERKIT_REDIS_URL alone turns Redis on with the defaults", async () => {
    const config = await loadConfig({ env: { RENDERKIT_REDIS_URL: " redis://127.0.0.1:6390 " } });
    expect(config.redis).toEqual({
      url: "redis://127.0.0.1:6390",
      prefix: "renderkit",
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
    });
  });

  it("RENDERKIT_REDIS_URL replaces only the file's url: prefix and timings stay", async () => {
    const file = await configFile({
      redis: { url: "redis://from-file:6379", prefix: "tenant-a", lockDurationMs: 7_000, stalledIntervalMs: 2_000 },
    });
    const config = await loadConfig({ file, env: { RENDERKIT_REDIS_URL: "redis://from-env:6380/1" } });
    expect(config.redis).toEqual({
      url: "redis://from-env:6380/1",
      prefix: "tenant-a",
      lockDurationMs: 7_000,
      stalledIntervalMs: 2_000,
    });
    // An empty variable is no setting at all.
    expect((await loadConfig({ file, env: { RENDERKIT_REDIS_URL: "  " } })).redis?.url).toBe("redis://from-file:6379");
  });

  it("a url that is not redis:// or rediss:// names redis.url and where it came from", async () => {
    const message = await fileError({ redis: { url: "http://cache.internal:6379" } }, "redis.url");
    expect(message).toContain("must be a redis:// or rediss:// address");
    const fromEnv = await refused(loadConfig({ env: { RENDERKIT_REDIS_URL: "cache.internal:6379" } }));
    expect(fromEnv).toBe("redis.url must be a redis:// or rediss:// address (from environment variable RENDERKIT_REDIS_URL)");
    await fileError({ redis: {} }, "redis.url");
    await fileError({ redis: "redis://cache:6379" }, "redis");
  });

  it("refuses unknown keys, naming the key and the known ones", async () => {
    const message = await fileError({ redis: { url: "redis://cache:6379", password: "x" } }, "redis.password");
    expect(message).toContain("is not a known key (known: url, prefix, lockDurationMs, stalledIntervalMs)");
  });

  it("refuses out-of-range numbers and a bad prefix, naming the key", async () => {
    const url = "redis://cache:6379";
    expect(await fileError({ redis: { url, lockDurationMs: 999 } }, "redis.lockDurationMs")).toContain("from 1000 to 600000");
    expect(await fileError({ redis: { url, lockDurationMs: 600_001 } }, "redis.lockDurationMs")).toContain("600000");
    expect(await fileError({ redis: { url, lockDurationMs: 1_500.5 } }, "redis.lockDurationMs")).toContain("integer");
    expect(await fileError({ redis: { url, stalledIntervalMs: 499 } }, "redis.stalledIntervalMs")).toContain(
      "from 500 to 600000",
    );
    expect(await fileError({ redis: { url, stalledIntervalMs: "1000" } }, "redis.stalledIntervalMs")).toContain("integer");
    await fileError({ redis: { url, prefix: "has space" } }, "redis.prefix");
    await fileError({ redis: { url, prefix: "" } }, "redis.prefix");
  });

  it("the file's redis error is reported even when RENDERKIT_REDIS_URL is fine", async () => {
    const file = await configFile({ redis: { url: "redis://from-file:6379", lockDurationMs: 10 } });
    const message = await refused(loadConfig({ file, env: { RENDERKIT_REDIS_URL: "redis://from-env:6379" } }));
    expect(message).toContain("redis.lockDurationMs");
    expect(message).toContain(file);
  });
});

describe("storage", () => {
  const s3 = {
    kind: "s3",
    bucket: "renders.example-1",
    region: "eu-west-1",
    endpoint: "http://127.0.0.1:9000",
    forcePathStyle: true,
    accessKeyId: "AKIAEXAMPLE",
    secretAccessKey: STORAGE_SECRET,
    publicBaseUrl: "https://cdn.example.com/renders",
  };

  it('is { kind: "fs" } by default and when written so', async () => {
    expect((await loadConfig({ env: {} })).storage).toEqual({ kind: "fs" });
    expect((await loadConfig({ file: await configFile({ storage: { kind: "fs" } }), env: {} })).storage).toEqual({ kind: "fs" });
  });

  it("accepts an S3 bucket with every key; the secret is readable by name only", async () => {
    const config = await loadConfig({ file: await configFile({ storage: s3 }), env: {} });
    const { secretAccessKey: _secret, ...visible } = s3;
    expect(config.storage).toEqual(visible);
    expect(config.storage.kind === "s3" && config.storage.secretAccessKey).toBe(STORAGE_SECRET);
    expect(Object.keys(config.storage)).not.toContain("secretAccessKey");
    expect(JSON.stringify(config)).not.toContain(STORAGE_SECRET);
    expect(JSON.stringify(config.storage)).not.toContain(STORAGE_SECRET);
  });

  it("accepts a bucket alone (credentials from AWS_* and the SDK's defaults)", async () => {
    const config = await loadConfig({ file: await configFile({ storage: { kind: "s3", bucket: "renders" } }), env: {} });
    expect(config.storage).toEqual({ kind: "s3", bucket: "renders" });
  });

  it("the overrides (embedding) hide the secret as the file does", async () => {
    const config = await loadConfig({ env: {}, overrides: { storage: s3 as never } });
    expect(config.storage.kind === "s3" && config.storage.secretAccessKey).toBe(STORAGE_SECRET);
    expect(JSON.stringify(config)).not.toContain(STORAGE_SECRET);
  });

  it("a bad kind names storage.kind", async () => {
    expect(await fileError({ storage: { kind: "gcs", bucket: "renders" } }, "storage.kind")).toContain('must be "fs" or "s3"');
    await fileError({ storage: {} }, "storage.kind");
    await fileError({ storage: "s3" }, "storage");
  });

  it("fs takes no bucket keys", async () => {
    expect(await fileError({ storage: { kind: "fs", bucket: "renders" } }, "storage.bucket")).toContain("is not a known key");
  });

  it("a bad bucket name names storage.bucket", async () => {
    for (const bucket of ["Renders", "re", "under_score", "-leading", "x".repeat(64)]) {
      expect(await fileError({ storage: { kind: "s3", bucket } }, "storage.bucket")).toContain("must be a bucket name");
    }
    await fileError({ storage: { kind: "s3" } }, "storage.bucket");
  });

  it("accessKeyId without secretAccessKey (and the reverse) is refused, never repeating a value", async () => {
    const one = await fileError({ storage: { kind: "s3", bucket: "renders", accessKeyId: "AKIAEXAMPLE" } }, "storage");
    expect(one).toContain("must have both accessKeyId and secretAccessKey");
    const other = await fileError({ storage: { kind: "s3", bucket: "renders", secretAccessKey: STORAGE_SECRET } }, "storage");
    expect(other).toContain("must have both accessKeyId and secretAccessKey");
    expect(other).not.toContain(STORAGE_SECRET);
  });

  it("publicBaseUrl and endpoint must be plain http(s) addresses", async () => {
    const bucket = { kind: "s3", bucket: "renders" };
    const query = await fileError(
      { storage: { ...bucket, publicBaseUrl: "https://cdn.example.com/r?sig=1" } },
      "storage.publicBaseUrl",
    );
    expect(query).toContain("without query");
    await fileError({ storage: { ...bucket, publicBaseUrl: "https://cdn.example.com/r#top" } }, "storage.publicBaseUrl");
    await fileError({ storage: { ...bucket, publicBaseUrl: "ftp://cdn.example.com/r" } }, "storage.publicBaseUrl");
    await fileError({ storage: { ...bucket, endpoint: "https://user:pw@s3.example.com" } }, "storage.endpoint");
    await fileError({ storage: { ...bucket, region: "EU West" } }, "storage.region");
    await fileError({ storage: { ...bucket, forcePathStyle: "yes" } }, "storage.forcePathStyle");
    await fileError({ storage: { ...bucket, storageClass: "GLACIER" } }, "storage.storageClass");
  });

  it("projects[i].s3: accepted, its secret readable by name but absent from JSON and keys", async () => {
    const bucket = {
      bucket: "alpha-renders",
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      accessKeyId: "AKIAPROJECT",
      secretAccessKey: PROJECT_SECRET,
    };
    const file = await configFile({ projects: [{ ...PROJECT, s3: bucket }] });
    const config = await loadConfig({ file, env: {} });
    const s3Config = config.projects[0]?.s3;
    expect(s3Config?.secretAccessKey).toBe(PROJECT_SECRET);
    expect(s3Config?.accessKeyId).toBe("AKIAPROJECT");
    expect(Object.keys(s3Config ?? {})).not.toContain("secretAccessKey");
    // `prefix` is filled with its default: the project's id as a folder.
    expect(Object.keys(s3Config ?? {})).toEqual(["bucket", "region", "endpoint", "forcePathStyle", "accessKeyId", "prefix"]);
    expect(s3Config?.prefix).toBe(`${PROJECT.id}/`);
    const serialised = JSON.stringify(config);
    expect(serialised).not.toContain(PROJECT_SECRET);
    expect(serialised).not.toContain(PROJECT.secretKey);
    expect(serialised).toContain("alpha-renders");
  });

  it("projects[i].s3 errors name the project's path", async () => {
    const at = (s3: unknown) =>
      fileError(
        {
          projects: [
            PROJECT,
            { ...PROJECT, id: "beta", publishableKey: "pk_test_beta", secretKey: "sk_test_beta_0123456789abcdefgh", s3 },
          ],
        },
        "projects[1].s3",
      );
    expect(await at({ region: "eu-west-1" })).toMatch(/^projects\[1\]\.s3\.bucket must be a bucket name/);
    expect(await at({ bucket: "ok-bucket", accessKeyId: "AKIA" })).toContain("must have both accessKeyId and secretAccessKey");
    expect(await at({ bucket: "ok-bucket", publicBaseUrl: "https://cdn.example.com/?x=1" })).toMatch(
      /^projects\[1\]\.s3\.publicBaseUrl must be an http\(s\) address without query/,
    );
    expect(await at({ bucket: "ok-bucket", kind: "s3" })).toMatch(/^projects\[1\]\.s3\.kind is not a known key/);
  });
});

describe("plugins", () => {
  it("is an empty list by default", async () => {
    expect((await loadConfig({ env: {} })).plugins).toEqual([]);
  });

  it("strings and { module, options }; relative paths in a file resolve against its directory, package names stay", async () => {
    const file = await configFile({
      plugins: [
        "renderkit-plugin-thing",
        "@acme/renderkit-plugin",
        "./plugins/local.mjs",
        { module: "../shared/other.mjs", options: { maxChars: 5, nested: { on: true } } },
        { module: "@acme/with-options", options: {} },
        { module: "/opt/renderkit/absolute.mjs" },
        "plugins/not-relative-but-a-package-path",
      ],
    });
    const base = join(file, "..");
    const config = await loadConfig({ file, env: {} });
    expect(config.plugins).toEqual([
      "renderkit-plugin-thing",
      "@acme/renderkit-plugin",
      join(base, "plugins/local.mjs"),
      { module: resolve(base, "../shared/other.mjs"), options: { maxChars: 5, nested: { on: true } } },
      { module: "@acme/with-options", options: {} },
      { module: "/opt/renderkit/absolute.mjs" },
      "plugins/not-relative-but-a-package-path",
    ]);
  });

  it("the same file read from another working directory gives the same absolute paths", async () => {
    const file = await configFile({ plugins: ["./here.mjs"] });
    const before = process.cwd();
    process.chdir(tmpdir());
    try {
      expect((await loadConfig({ file, env: {} })).plugins).toEqual([join(file, "..", "here.mjs")]);
    } finally {
      process.chdir(before);
    }
  });

  it("refuses bad entries, naming plugins[i]", async () => {
    expect(await fileError({ plugins: "renderkit-plugin-thing" }, "plugins")).toContain("must be a list");
    expect(await fileError({ plugins: { module: "x" } }, "plugins")).toContain("must be a list");
    const shapes = 'must be a package name, a file path or { "module": ..., "options": {...} }';
    expect(await fileError({ plugins: ["ok", 42] }, "plugins[1]")).toContain(shapes);
    expect(await fileError({ plugins: [null] }, "plugins[0]")).toContain(shapes);
    expect(await fileError({ plugins: [["nested"]] }, "plugins[0]")).toContain(shapes);
    expect(await fileError({ plugins: [""] }, "plugins[0]")).toContain("must be a package name or a file path");
    await fileError({ plugins: [" padded "] }, "plugins[0]");
    await fileError({ plugins: [{}] }, "plugins[0].module");
    await fileError({ plugins: [{ module: 7 }] }, "plugins[0].module");
    expect(await fileError({ plugins: [{ module: "x", options: [1] }] }, "plugins[0].options")).toContain("must be an object");
    await fileError({ plugins: [{ module: "x", options: "maxChars=5" }] }, "plugins[0].options");
    expect(await fileError({ plugins: [{ module: "x", option: {} }] }, "plugins[0].option")).toContain(
      "is not a known key (known: module, options)",
    );
    await fileError({ plugins: Array.from({ length: 101 }, (_, i) => `p${i}`) }, "plugins");
  });
});
