import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../dist/config/index.js";

const PROJECT = {
  id: "alpha",
  secretKey: "sk_test_alpha_0123456789abcdef",
  publishableKey: "pk_test_alpha",
  webhookSecret: "whsec_alpha_0123456789abcdef",
};
const PROJECT_2 = {
  id: "beta",
  secretKey: "sk_test_beta_0123456789abcdefgh",
  publishableKey: "pk_test_beta",
  webhookSecret: "whsec_beta_0123456789abcdefgh",
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function configFile(content: unknown): Promise<string> {
  const file = join(dir, `config-${n++}.json`);
  await writeFile(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("loadConfig defaults and sources", () => {
  it("uses every default without a file or environment", async () => {
    const config = await loadConfig({ env: {} });
    expect(config).toEqual({
      port: 8080,
      host: "127.0.0.1",
      dataDir: resolve(".renderkit"),
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
      egress: { maxBytes: 200 * 1024 * 1024, maxConnections: 256 },
      rateLimit: { requests: 120, perSeconds: 60 },
      webhooks: { timeoutMs: 10_000 },
      adblock: {
        lists: ["https://easylist.to/easylist/easylist.txt", "https://easylist.to/easylist/easyprivacy.txt"],
        refreshSeconds: 86_400,
      },
      logLevel: "info",
      storage: { kind: "fs" },
      plugins: [],
      metrics: { enabled: false },
    });
    expect(config.redis).toBeUndefined();
  });

  it("reads PORT, HOST, RENDERKIT_DATA_DIR and RENDERKIT_LOG_LEVEL", async () => {
    const config = await loadConfig({
      env: { PORT: "9090", HOST: "0.0.0.0", RENDERKIT_DATA_DIR: "some/data", RENDERKIT_LOG_LEVEL: "debug" },
    });
    expect(config.port).toBe(9090);
    expect(config.host).toBe("0.0.0.0");
    expect(config.dataDir).toBe(resolve("some/data"));
    expect(config.logLevel).toBe("debug");
  });

  it("names the environment variable of a bad value", async () => {
    const error = await rejection(loadConfig({ env: { PORT: "eighty" } }));
    expect(error.message).toBe("port must be an integer from 0 to 65535 (from environment variable PORT)");
    const level = await rejection(loadConfig({ env: { RENDERKIT_LOG_LEVEL: "loud" } }));
    expect(level.message).toContain("logLevel must be one of debug, info, warn, error, silent");
    expect(level.message).toContain("RENDERKIT_LOG_LEVEL");
  });

  it("takes the file from RENDERKIT_CONFIG; the environment overrides the file, overrides override both", async () => {
    const file = await configFile({ port: 1234, host: "::1", concurrency: 4, dataDir: "rel-data" });
    const fromEnv = await loadConfig({ env: { RENDERKIT_CONFIG: file } });
    expect(fromEnv.port).toBe(1234);
    expect(fromEnv.host).toBe("::1");
    expect(fromEnv.concurrency).toBe(4);
    expect(fromEnv.dataDir).toBe(join(dir, "rel-data")); // relative to the file's directory
    const layered = await loadConfig({ file, env: { PORT: "4321" }, overrides: { port: 0, concurrency: 8 } });
    expect(layered.port).toBe(0);
    expect(layered.concurrency).toBe(8);
    expect((await loadConfig({ file, env: { PORT: "4321" } })).port).toBe(4321);
  });

  it("fills defaults inside webhooks and keeps a schedule", async () => {
    const config = await loadConfig({ env: {}, overrides: { webhooks: { scheduleMs: [100, 200] } as never } });
    expect(config.webhooks).toEqual({ timeoutMs: 10_000, scheduleMs: [100, 200] });
  });

  it("adblock: fills defaults, resolves file paths against the config file, and RENDERKIT_ADBLOCK_LISTS replaces the lists", async () => {
    const file = await configFile({ adblock: { lists: ["lists/mine.txt", "https://lists.example/a.txt"] } });
    const fromFile = await loadConfig({ file, env: {} });
    expect(fromFile.adblock).toEqual({
      lists: [join(dir, "lists/mine.txt"), "https://lists.example/a.txt"],
      refreshSeconds: 86_400,
    });
    const refreshOnly = await configFile({ adblock: { refreshSeconds: 3600 } });
    const withEnv = await loadConfig({
      file: refreshOnly,
      env: { RENDERKIT_ADBLOCK_LISTS: " https://lists.example/b.txt , local.txt ,," },
    });
    expect(withEnv.adblock).toEqual({ lists: ["https://lists.example/b.txt", resolve("local.txt")], refreshSeconds: 3600 });
    expect((await loadConfig({ env: {}, overrides: { adblock: { lists: [] } as never } })).adblock.lists).toEqual([]);
  });

  it("adblock: a bad RENDERKIT_ADBLOCK_LISTS names the variable and never repeats the address", async () => {
    const error = await rejection(loadConfig({ env: { RENDERKIT_ADBLOCK_LISTS: "ftp://user:secret-pass@lists.example/x" } }));
    expect(error.message).toBe(
      "adblock.lists[0] must be a file path or an http(s) address (from environment variable RENDERKIT_ADBLOCK_LISTS)",
    );
    expect(error.message).not.toContain("secret-pass");
  });

  it("normalises projects and hides their secrets from serialisation", async () => {
    const config = await loadConfig({
      env: {},
      overrides: { projects: [PROJECT, { ...PROJECT_2, secretKey: undefined, secretKeyHash: "AB".repeat(32) }] },
    });
    const [a, b] = config.projects;
    expect(a).toMatchObject({ id: "alpha", name: "alpha", enabled: true, allowTokenless: false });
    expect(a?.secretKey).toBe(PROJECT.secretKey);
    expect(a?.webhookSecret).toBe(PROJECT.webhookSecret);
    expect(b?.secretKeyHash).toBe("ab".repeat(32));
    const text = JSON.stringify(config);
    expect(text).not.toContain(PROJECT.secretKey);
    expect(text).not.toContain(PROJECT.webhookSecret);
  });
});

describe("loadConfig validation names the key path", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["port out of range", { port: 70000 }, "port must be an integer from 0 to 65535"],
    ["port as a string", { port: "80" }, "port must be an integer from 0 to 65535"],
    ["host with a space", { host: "a b" }, "host must be a host name or IP address"],
    ["baseUrl not http", { baseUrl: "ftp://x" }, "baseUrl must be an http(s) address"],
    ["dataDir empty", { dataDir: "" }, "dataDir must be a string"],
    ["allowPrivateNetworks number", { allowPrivateNetworks: 1 }, "allowPrivateNetworks must be true, false or a list"],
    [
      "allowPrivateNetworks bad CIDR",
      { allowPrivateNetworks: ["10.0.0.0/40"] },
      "allowPrivateNetworks[0] is not a valid CIDR block",
    ],
    ["projects not a list", { projects: {} }, "projects must be a list of projects"],
    ["concurrency zero", { concurrency: 0 }, "concurrency must be a positive integer"],
    ["maxQueued zero", { maxQueued: 0 }, "maxQueued must be a positive integer (at most 1000000)"],
    ["maxBodyBytes tiny", { maxBodyBytes: 10 }, "maxBodyBytes must be an integer from 1024 to"],
    ["redirectAfter fractional", { redirectAfter: 1.5 }, "redirectAfter must be a positive integer"],
    ["maxRedirectAfter huge", { maxRedirectAfter: 100000 }, "maxRedirectAfter must be a positive integer (at most 3600)"],
    ["renderTtlDays zero", { renderTtlDays: 0 }, "renderTtlDays must be a number of days greater than 0"],
    ["drainSeconds string", { drainSeconds: "5" }, "drainSeconds must be an integer from 0 to 3600"],
    ["engine uppercase", { engine: "Playwright" }, "engine must be an engine name"],
    ["rateLimit.requests zero", { rateLimit: { requests: 0, perSeconds: 60 } }, "rateLimit.requests must be a positive integer"],
    ["rateLimit.perSeconds missing", { rateLimit: { requests: 5 } }, "rateLimit.perSeconds must be a positive integer"],
    ["rateLimit unknown key", { rateLimit: { requests: 5, perSeconds: 5, burst: 2 } }, "rateLimit.burst is not a known key"],
    ["webhooks.timeoutMs", { webhooks: { timeoutMs: 5 } }, "webhooks.timeoutMs must be an integer from 100 to 600000"],
    ["webhooks.scheduleMs entry", { webhooks: { scheduleMs: [100, -1] } }, "webhooks.scheduleMs[1] must be an integer"],
    ["adblock not an object", { adblock: ["x.txt"] }, "adblock must be an object"],
    ["adblock.lists a string", { adblock: { lists: "x.txt" } }, "adblock.lists must be a list of at most 100 file paths"],
    ["adblock.lists entry a number", { adblock: { lists: [1] } }, "adblock.lists[0] must be a file path or an http(s) address"],
    ["adblock.lists entry empty", { adblock: { lists: ["a.txt", ""] } }, "adblock.lists[1] must be a file path or an http(s)"],
    [
      "adblock.lists ftp",
      { adblock: { lists: ["ftp://lists.example/x"] } },
      "adblock.lists[0] must be a file path or an http(s)",
    ],
    ["adblock.refreshSeconds small", { adblock: { refreshSeconds: 5 } }, "adblock.refreshSeconds must be an integer from 60"],
    ["adblock.refreshSeconds string", { adblock: { refreshSeconds: "1d" } }, "adblock.refreshSeconds must be an integer"],
    ["adblock unknown key", { adblock: { list: [] } }, "adblock.list is not a known key (known: lists, refreshSeconds)"],
    ["logLevel", { logLevel: "verbose" }, "logLevel must be one of debug, info, warn, error, silent"],
    ["unknown top-level key", { prot: 80 }, "prot is not a known configuration key"],
    ["not an object", [] as unknown as Record<string, unknown>, "The configuration must be a JSON object"],
  ];
  it.each(cases)("%s", async (_name, content, message) => {
    const file = await configFile(content);
    const error = await rejection(loadConfig({ file, env: {} }));
    expect(error.message).toContain(message);
    expect(error.message).toContain(file);
  });

  const project = (change: Record<string, unknown>) => ({ projects: [PROJECT, { ...PROJECT_2, ...change }] });
  const projectCases: [string, Record<string, unknown>, string][] = [
    [
      "rateLimit.requests",
      project({ rateLimit: { requests: -1, perSeconds: 60 } }),
      "projects[1].rateLimit.requests must be a positive integer",
    ],
    ["id pattern", project({ id: "has space" }), "projects[1].id must be 1 to 64 letters"],
    ["duplicate id", project({ id: "alpha" }), "projects[1].id is the same as in projects[0]; it must be unique"],
    ["duplicate secret key", project({ secretKey: PROJECT.secretKey }), "projects[1].secretKey is the same as in projects[0]"],
    [
      "duplicate publishable key",
      project({ publishableKey: PROJECT.publishableKey }),
      "projects[1].publishableKey is the same as in projects[0]",
    ],
    [
      "publishable key equals a secret key",
      project({ publishableKey: "sk_test_alpha_0123456789abcdef" }),
      "projects[1].publishableKey must differ from every secret key",
    ],
    ["no secret", project({ secretKey: undefined }), "projects[1] must have exactly one of secretKey or secretKeyHash"],
    [
      "both secrets",
      project({ secretKeyHash: "a".repeat(64) }),
      "projects[1] must have exactly one of secretKey or secretKeyHash",
    ],
    ["short secret key", project({ secretKey: "short" }), "projects[1].secretKey must be 16 to 256 printable ASCII characters"],
    [
      "secret key with a space",
      project({ secretKey: "sk with a space inside" }),
      "projects[1].secretKey must be 16 to 256 printable ASCII",
    ],
    [
      "bad hash",
      project({ secretKey: undefined, secretKeyHash: "xyz" }),
      "projects[1].secretKeyHash must be 64 hexadecimal characters",
    ],
    ["missing publishable key", project({ publishableKey: undefined }), "projects[1].publishableKey must be 8 to 256"],
    ["publishable key with a slash", project({ publishableKey: "pk_a/b_c_d" }), "projects[1].publishableKey must be 8 to 256"],
    [
      "short webhook secret",
      project({ webhookSecret: "whsec_short" }),
      "projects[1].webhookSecret must be a string of at least 16 characters",
    ],
    [
      "webhook secret equal to secret key",
      project({ webhookSecret: PROJECT_2.secretKey }),
      "projects[1].webhookSecret must differ from the secret key",
    ],
    ["enabled not boolean", project({ enabled: "yes" }), "projects[1].enabled must be true or false"],
    ["allowTokenless not boolean", project({ allowTokenless: 1 }), "projects[1].allowTokenless must be true or false"],
    ["formats empty", project({ formats: [] }), "projects[1].formats must be a non-empty list"],
    ["formats entry", project({ formats: ["png", "P N G"] }), "projects[1].formats[1] must be a format name"],
    ["unknown project key", project({ plan: "pro" }), "projects[1].plan is not a known key"],
  ];
  it.each(projectCases)("project: %s", async (_name, content, message) => {
    const error = await rejection(loadConfig({ env: {}, overrides: content }));
    expect(error.message).toContain(message);
  });

  it("project: a hash equal to another project's hashed secret key is a duplicate", async () => {
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update(PROJECT.secretKey).digest("hex");
    const error = await rejection(loadConfig({ env: {}, overrides: project({ secretKey: undefined, secretKeyHash: hash }) }));
    expect(error.message).toContain("projects[1].secretKeyHash is the same as in projects[0]");
  });

  it("never puts a secret in a message", async () => {
    const error = await rejection(loadConfig({ env: {}, overrides: project({ secretKey: PROJECT.secretKey }) }));
    expect(error.message).not.toContain(PROJECT.secretKey);
  });

  it("checks redirectAfter against maxRedirectAfter", async () => {
    const error = await rejection(loadConfig({ env: {}, overrides: { redirectAfter: 120 } }));
    expect(error.message).toBe("redirectAfter must be at most maxRedirectAfter (95)");
    expect((await loadConfig({ env: {}, overrides: { redirectAfter: 120, maxRedirectAfter: 300 } })).redirectAfter).toBe(120);
  });

  it("names the file when it is missing, unreadable or not JSON", async () => {
    const missing = join(dir, "nope.json");
    expect((await rejection(loadConfig({ file: missing, env: {} }))).message).toBe(
      `cannot read config file ${missing}: no such file`,
    );
    const broken = await configFile("{ port: 80 ");
    expect((await rejection(loadConfig({ file: broken, env: {} }))).message).toContain(`config file ${broken} is not valid JSON`);
    if (process.getuid?.() !== 0) {
      const locked = await configFile({});
      await chmod(locked, 0o000);
      expect((await rejection(loadConfig({ file: locked, env: {} }))).message).toContain(`cannot read config file ${locked}`);
    }
  });
});
