import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listProcesses, untilEmpty } from "../../test/helpers/processes.js";
import { freePort, startRedis } from "../../test/helpers/redis.js";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import { loadConfig } from "../dist/config/index.js";
import type { S3Config, ServerConfig } from "../dist/config/types.js";
import { type DoctorCheck, doctorExitCode, formatDoctor, runDoctor } from "../dist/doctor/index.js";
import { lockDataDir } from "../dist/state/data-dir-lock.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-doctor-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A fresh data directory path inside the test's temporary directory (not created). */
const freshDir = () => join(dir, `data-${n++}`);

const named = (checks: DoctorCheck[], name: string) => checks.filter((check) => check.name === name);
const one = (checks: DoctorCheck[], name: string) => {
  const found = named(checks, name);
  expect(found, `exactly one "${name}" line in ${JSON.stringify(checks)}`).toHaveLength(1);
  return found[0]!;
};

/** An executable shell script in the test directory. */
async function script(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe("on this machine (everything installed)", () => {
  it("a file-mode config: no failure; chromium, ffmpeg, pdftocairo, fonts and the data directory are ok", async () => {
    const dataDir = freshDir();
    await mkdir(dataDir);
    const checks = await runDoctor(await loadConfig({ env: {}, overrides: { dataDir } }));
    expect(checks.filter((check) => check.status === "fail")).toEqual([]);
    expect(doctorExitCode(checks)).toBe(0);
    expect(one(checks, "chromium")).toMatchObject({ status: "ok", detail: expect.stringMatching(/chrom.*\(.*\d+\.\d+/i) });
    expect(named(checks, "ffmpeg")).toEqual([{ name: "ffmpeg", status: "ok", detail: expect.stringMatching(/ffmpeg version/) }]);
    expect(one(checks, "pdftocairo")).toMatchObject({ status: "ok", detail: expect.stringMatching(/pdftocairo version/) });
    expect(named(checks, "fonts").map((check) => [check.status, check.detail])).toEqual([
      ["ok", "Liberation Sans"],
      ["ok", "Noto Color Emoji"],
      ["ok", "Noto Sans CJK"],
    ]);
    const data = named(checks, "data directory");
    expect(data.every((check) => check.status === "ok")).toBe(true);
    expect(data[0]!.detail).toMatch(new RegExp(`^${dataDir} writable, [\\d.]+ GiB free$`));
    expect(data[1]!.detail).toMatch(/server\.lock: free/);
    expect(one(checks, "config").detail).toBe(
      `mode file (one process owns the data directory); storage fs (${dataDir}/renders); role all`,
    );
    expect(named(checks, "redis")).toEqual([]);
    const text = formatDoctor(checks);
    expect(text).toMatch(/^ok {4}chromium {2,}\/\S+ \(/m);
    expect(text).toMatch(/\n\d+ ok, 0 warnings, 0 failed\n$/);
  });

  it("an API node skips the browser, ffmpeg, pdftocairo and fonts", async () => {
    const dataDir = freshDir();
    const checks = await runDoctor(await loadConfig({ env: {}, overrides: { dataDir } }), {
      role: "api",
      env: { ...process.env, RENDERKIT_CHROMIUM: "/nonexistent" },
    });
    for (const name of ["chromium", "ffmpeg", "pdftocairo", "fonts"]) {
      expect(one(checks, name)).toEqual({ name, status: "ok", detail: "not needed on an API node" });
    }
    // A missing data directory in a writable parent is fine: the server creates it, the doctor does not.
    expect(named(checks, "data directory")[0]!.detail).toMatch(new RegExp(`^${dataDir} will be created \\(in ${dir}\\)`));
    // The server refuses role api without redis: so does the doctor.
    expect(named(checks, "config")[1]).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("role api needs redis"),
      fix: expect.stringMatching(/^set redis\.url .* or run renderkit serve$/),
    });
  });
});

describe("tools that are missing or broken", () => {
  it("RENDERKIT_CHROMIUM=/nonexistent: chromium fails with the fix", async () => {
    const config = await loadConfig({ env: {}, overrides: { dataDir: freshDir() } });
    const checks = await runDoctor(config, { role: "worker", env: { ...process.env, RENDERKIT_CHROMIUM: "/nonexistent" } });
    const chromium = one(checks, "chromium");
    expect(chromium.status).toBe("fail");
    expect(chromium.detail).toMatch(/\/nonexistent does not exist or is not executable/);
    expect(chromium.fix).toMatch(
      /^apt-get install chromium, or set RENDERKIT_CHROMIUM .*\(RENDERKIT_CHROMIUM is now \/nonexistent\)$/,
    );
    expect(doctorExitCode(checks)).toBe(1);
    expect(formatDoctor(checks)).toContain("      fix: apt-get install chromium, or set RENDERKIT_CHROMIUM");
  });

  it("a Chromium that hangs is killed at the timeout: the check fails, bounded, and leaves no process", async () => {
    const marker = "29.75";
    const hanging = await script("hanging-chromium", `exec sleep ${marker}`);
    const config = await loadConfig({ env: {}, overrides: { dataDir: freshDir() } });
    // 10 s leaves the step 2 s to kill and reap the command before the check's own bound: a
    // loaded machine needs more than the 200 ms that a 1 s bound would leave.
    const checks = await runDoctor(config, { timeoutMs: 10_000, env: { ...process.env, RENDERKIT_CHROMIUM: hanging } });
    const chromium = one(checks, "chromium");
    expect(chromium.status).toBe("fail");
    // Its steps get 80% of the check's time, so the command's own timeout names what hung.
    expect(chromium.detail).toBe(`${hanging} does not run: ${hanging} --version did not finish within 8000 ms (killed)`);
    expect(chromium.fix).toMatch(/apt-get install chromium/);
    expect(await untilEmpty(() => listProcesses().filter((p) => p.cmdline === `sleep ${marker}`))).toEqual([]);
  });

  it("FFMPEG_PATH=/nonexistent: ffmpeg fails; an ffmpeg without libx264 fails mp4 and warns for webm", async () => {
    const config = await loadConfig({ env: {}, overrides: { dataDir: freshDir() } });
    const missing = await runDoctor(config, { env: { ...process.env, FFMPEG_PATH: "/nonexistent" } });
    expect(one(missing, "ffmpeg")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("FFMPEG_PATH is /nonexistent"),
      fix: expect.stringMatching(/^apt-get install ffmpeg, or set FFMPEG_PATH/),
    });
    // Lists what `ffmpeg -encoders` would for a build with VP8 only.
    const vp8Only = await script(
      "ffmpeg-vp8-only",
      `case "$*" in *-encoders*) printf ' V....D libvpx               libvpx VP8\\n' ;; *) echo "ffmpeg version 0.0-test" ;; esac`,
    );
    const lacking = named(await runDoctor(config, { env: { ...process.env, FFMPEG_PATH: vp8Only } }), "ffmpeg");
    expect(lacking.map((check) => [check.status, check.detail])).toEqual([
      ["ok", `${vp8Only} (ffmpeg version 0.0-test)`],
      ["fail", `${vp8Only} lacks the libx264 encoder that mp4 renders use`],
      ["warn", `${vp8Only} lacks the libvpx-vp9 encoder that webm renders use`],
    ]);
    expect(lacking[1]!.fix).toMatch(/apt-get install ffmpeg .*FFMPEG_PATH to a build with libx264/);
  });

  it("a missing pdftocairo is a warning (svg's dom method still works), not a failure", async () => {
    const config = await loadConfig({ env: {}, overrides: { dataDir: freshDir() } });
    const checks = await runDoctor(config, { env: { ...process.env, PDFTOCAIRO_PATH: "/nonexistent/pdftocairo" } });
    expect(one(checks, "pdftocairo")).toMatchObject({
      status: "warn",
      fix: expect.stringMatching(/apt-get install poppler-utils/),
    });
    expect(doctorExitCode(checks)).toBe(0);
  });
});

describe("data directory", () => {
  it("a file where the directory should be: fail with a fix line", async () => {
    const file = join(dir, "not-a-dir");
    await writeFile(file, "x");
    const checks = await runDoctor(await loadConfig({ env: {}, overrides: { dataDir: file } }), { role: "api" });
    expect(one(checks, "data directory")).toEqual({
      name: "data directory",
      status: "fail",
      detail: `${file} is a file, not a directory`,
      fix: `point dataDir in the config file, or RENDERKIT_DATA_DIR at a directory, or move ${file} away`,
    });
    const below = join(file, "renders");
    const under = one(
      await runDoctor(await loadConfig({ env: {}, overrides: { dataDir: below } }), { role: "api" }),
      "data directory",
    );
    expect(under).toMatchObject({ status: "fail", detail: `${file} is a file, so ${below} cannot be created` });
    expect(formatDoctor([under])).toContain(`      fix: point dataDir`);
  });

  it("a directory this process cannot write: fail naming the error and the fix", async () => {
    // Root writes through permission bits, so as root use sysfs, which refuses new files to everyone.
    const root = process.getuid?.() === 0;
    const dataDir = root ? "/sys" : join(dir, "read-only");
    if (!root) {
      await mkdir(dataDir);
      await chmod(dataDir, 0o555);
    }
    const check = one(await runDoctor(await loadConfig({ env: {}, overrides: { dataDir } }), { role: "api" }), "data directory");
    expect(check.status).toBe("fail");
    expect(check.detail).toMatch(new RegExp(`^${dataDir} is not writable: E(ACCES|PERM|ROFS)`));
    expect(check.fix).toMatch(new RegExp(`^chown or chmod ${dataDir} so that uid \\d+ can write it`));
    if (!root) await chmod(dataDir, 0o755);
  });

  it("reports the file-mode lock without taking it: live holder, stale holder", async () => {
    const dataDir = freshDir();
    const release = await lockDataDir(dataDir);
    try {
      const [, lock] = named(
        await runDoctor(await loadConfig({ env: {}, overrides: { dataDir } }), { role: "api" }),
        "data directory",
      );
      expect(lock).toMatchObject({
        status: "ok",
        detail: expect.stringContaining(`held by the live pid ${process.pid} on ${hostname()}`),
      });
    } finally {
      await release();
    }
    // A lock left by a process that has exited.
    const child = spawn("true");
    const pid = child.pid!;
    await new Promise((resolve) => child.once("exit", resolve));
    await writeFile(join(dataDir, "server.lock"), JSON.stringify({ pid, host: hostname() }));
    const [, stale] = named(
      await runDoctor(await loadConfig({ env: {}, overrides: { dataDir } }), { role: "api" }),
      "data directory",
    );
    expect(stale).toMatchObject({
      status: "ok",
      detail: `server.lock: stale, left by pid ${pid} on ${hostname()} (the next server start takes it over)`,
    });
  });
});

describe("redis", () => {
  const redisConfig = (url: string, extra: Partial<ServerConfig> = {}) =>
    loadConfig({ env: {}, overrides: { dataDir: freshDir(), redis: { url } as ServerConfig["redis"], ...extra } });

  it("running: ok with the version and noeviction; another policy warns; stopped: fails naming the address, quickly", async () => {
    const redis = await startRedis();
    try {
      const checks = await runDoctor(await redisConfig(redis.url), { role: "api" });
      expect(named(checks, "redis")).toEqual([
        {
          name: "redis",
          status: "ok",
          detail: expect.stringMatching(new RegExp(`^redis://127\\.0\\.0\\.1:${redis.port}: Redis \\d+\\.\\d+`)),
        },
        { name: "redis", status: "ok", detail: "maxmemory-policy noeviction" },
      ]);
      // File mode's lock means nothing with redis: not reported.
      expect(named(checks, "data directory")).toHaveLength(1);
      const admin = new Redis(redis.url);
      await admin.config("SET", "maxmemory-policy", "allkeys-lru");
      await admin.quit();
      const evicting = named(await runDoctor(await redisConfig(redis.url), { role: "api" }), "redis")[1]!;
      expect(evicting).toMatchObject({ status: "warn", detail: expect.stringContaining("maxmemory-policy is allkeys-lru") });
      expect(evicting.fix).toContain("CONFIG SET maxmemory-policy noeviction");
    } finally {
      await redis.stop();
    }
    const down = one(await runDoctor(await redisConfig(redis.url), { role: "api" }), "redis");
    expect(down.status).toBe("fail");
    expect(down.detail).toBe(
      `Redis at redis://127.0.0.1:${redis.port} is unreachable: connect ECONNREFUSED 127.0.0.1:${redis.port} (Connection is closed.)`,
    );
    expect(down.fix).toMatch(new RegExp(`^start Redis at redis://127\\.0\\.0\\.1:${redis.port} `));
  });

  it("the password in the URL never appears, right or wrong", async () => {
    const redis = await startRedis();
    try {
      const admin = new Redis(redis.url);
      await admin.config("SET", "requirepass", "sekret");
      await admin.quit();
      const right = await runDoctor(await redisConfig(`redis://:sekret@127.0.0.1:${redis.port}`), { role: "api" });
      expect(named(right, "redis").map((check) => check.status)).toEqual(["ok", "ok"]);
      expect(named(right, "redis")[0]!.detail).toMatch(new RegExp(`^redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}: Redis`));
      const wrong = await runDoctor(await redisConfig(`redis://:wrongpass@127.0.0.1:${redis.port}`), { role: "api" });
      expect(one(wrong, "redis")).toMatchObject({ status: "fail", detail: expect.stringMatching(/WRONGPASS/) });
      expect(one(wrong, "redis").fix).toMatch(/^put the right user and password in redis\.url/);
      for (const [checks, secret] of [
        [right, "sekret"],
        [wrong, "wrongpass"],
      ] as const) {
        const text = formatDoctor(checks);
        expect(text).toContain(":***@127.0.0.1");
        expect(text).not.toContain(secret);
      }
    } finally {
      await redis.stop();
    }
    const closed = formatDoctor(
      await runDoctor(await redisConfig(`redis://:sekret@127.0.0.1:${await freePort()}`), { role: "api" }),
    );
    expect(closed).toMatch(/fail {2}redis .*unreachable/);
    expect(closed).toContain("fix: start Redis at redis://:***@127.0.0.1:");
    expect(closed).not.toContain("sekret");
  });

  it("a server that accepts and never answers: fails at the timeout and closes its connection", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      // Read and drop what the client sends: a socket that is never read never sees the client's FIN.
      socket.resume();
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const check = one(
        await runDoctor(await redisConfig(`redis://127.0.0.1:${port}`), { role: "api", timeoutMs: 1_000 }),
        "redis",
      );
      expect(check.status).toBe("fail");
      expect(check.detail).toMatch(/no answer within 1000 ms|unreachable/);
      expect(await untilEmpty(() => [...sockets], 3_000)).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("config warnings: redis with fs storage, redis without baseUrl", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const warnings = named(await runDoctor(await redisConfig(url), { role: "api" }), "config").filter((c) => c.status === "warn");
    expect(warnings.map((check) => check.fix)).toEqual([
      "use storage.kind s3, or run every process on this machine with one dataDir",
      expect.stringMatching(/^set baseUrl to the address clients reach the API at/),
    ]);
    expect(warnings[0]!.detail).toContain("workers on other machines cannot share files");
    expect(warnings[1]!.detail).toContain("workers write render addresses with it");
  });
});

describe("s3", () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3(["renders", "project-bucket"]);
  });
  afterAll(async () => {
    await s3?.stop();
  });

  const bucket = (name: string, extra: Partial<S3Config> = {}): S3Config => ({ ...s3.bucket(name), ...extra });

  /**
   * A config with S3 storage. The loader currently drops `storage.secretAccessKey` (it is made
   * non-enumerable, then spread into `{ kind: "s3", ... }`): set again here so that these tests
   * check the doctor, not the loader. Without it the doctor reports the missing secret.
   */
  async function s3Config(storage: S3Config, extra: Partial<ServerConfig> = {}): Promise<ServerConfig> {
    const config = await loadConfig({
      env: {},
      overrides: { dataDir: freshDir(), storage: { kind: "s3", ...storage }, baseUrl: "https://render.example.com", ...extra },
    });
    config.storage = { kind: "s3", ...storage };
    return config;
  }

  /** The doctor's probe objects left in a bucket (a project's under its key prefix). */
  async function doctorObjects(name: string, prefix = ""): Promise<string[]> {
    const client = s3.client();
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: name, Prefix: `${prefix}renderkit-doctor/` }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    } finally {
      client.destroy();
    }
  }

  it("the bucket exists: write, read and delete work, nothing is left behind; a project bucket gets its own line", async () => {
    const project = {
      id: "alpha",
      secretKey: "sk_test_alpha_0123456789abcdef",
      publishableKey: "pk_test_alpha",
      webhookSecret: "whsec_alpha_0123456789abcdef",
      s3: { ...bucket("project-bucket"), prefix: "alpha/" },
    };
    const checks = await runDoctor(await s3Config(bucket("renders"), { projects: [project] }));
    expect(one(checks, "s3 storage")).toEqual({
      name: "s3 storage",
      status: "ok",
      detail: `bucket renders at ${s3.endpoint}: write, read and delete work`,
    });
    expect(one(checks, "s3 project alpha")).toMatchObject({
      status: "ok",
      detail: `bucket project-bucket at ${s3.endpoint}: write, read and delete work`,
    });
    expect(one(checks, "config").detail).toBe(
      `mode file (one process owns the data directory); storage s3 (bucket renders at ${s3.endpoint}); role all`,
    );
    expect(doctorExitCode(checks)).toBe(0);
    expect(await doctorObjects("renders")).toEqual([]);
    expect(await doctorObjects("project-bucket", "alpha/")).toEqual([]);
  });

  it("a missing bucket fails naming it, the endpoint and NoSuchBucket", async () => {
    const check = one(await runDoctor(await s3Config(bucket("no-such-bucket")), { role: "api" }), "s3 storage");
    expect(check.status).toBe("fail");
    expect(check.detail).toMatch(
      new RegExp(`^bucket no-such-bucket at ${s3.endpoint}: writing a test object failed: NoSuchBucket \\(`),
    );
    expect(check.fix).toBe(`create the bucket no-such-bucket at ${s3.endpoint}, or fix storage.bucket`);
  });

  it("credentials: s3rver refuses an unknown access key (InvalidAccessKeyId) but does not check the secret", async () => {
    const unknownKey = one(
      await runDoctor(await s3Config(bucket("renders", { accessKeyId: "NOT-A-KEY" })), { role: "api" }),
      "s3 storage",
    );
    expect(unknownKey).toMatchObject({ status: "fail", detail: expect.stringContaining("failed: InvalidAccessKeyId (") });
    expect(unknownKey.fix).toMatch(/^correct storage\.accessKeyId and storage\.secretAccessKey/);
    // Real S3 answers SignatureDoesNotMatch here (same fix); s3rver accepts any secret for its key.
    const checks = await runDoctor(await s3Config(bucket("renders", { secretAccessKey: "wrong-secret-1234" })), { role: "api" });
    expect(one(checks, "s3 storage").status).toBe("ok");
    expect(formatDoctor(checks)).not.toContain("wrong-secret-1234");
  });

  it("an unreachable endpoint fails with the network error, bounded", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const check = one(await runDoctor(await s3Config(bucket("renders", { endpoint })), { role: "api" }), "s3 storage");
    expect(check).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`bucket renders at ${endpoint}: writing a test object failed: ECONNREFUSED`),
    });
    expect(check.fix).toBe(`check that ${endpoint} is reachable from this machine, or fix storage.endpoint`);
  });

  it("an endpoint that accepts and never answers: the SDK's timeout ends the check in time", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket.resume());
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const checks = await runDoctor(await s3Config(bucket("renders", { endpoint })), { role: "api", timeoutMs: 1_500 });
      expect(one(checks, "s3 storage")).toMatchObject({
        status: "fail",
        detail: expect.stringContaining(`bucket renders at ${endpoint}: writing a test object failed: TimeoutError (`),
        fix: `check that ${endpoint} is reachable from this machine, or fix storage.endpoint`,
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a missing project bucket fails on its own line, naming the project's settings", async () => {
    const project = {
      id: "beta",
      secretKey: "sk_test_beta_0123456789abcdefgh",
      publishableKey: "pk_test_beta",
      webhookSecret: "whsec_beta_0123456789abcdefgh",
      s3: { ...bucket("gone-bucket"), prefix: "beta/" },
    };
    const checks = await runDoctor(await loadConfig({ env: {}, overrides: { dataDir: freshDir(), projects: [project] } }), {
      role: "api",
    });
    expect(one(checks, "s3 project beta")).toMatchObject({
      status: "fail",
      fix: "create the bucket gone-bucket at " + s3.endpoint + ", or fix projects[0].s3.bucket",
    });
    expect(named(checks, "s3 storage")).toEqual([]);
  });
});

describe("formatDoctor and doctorExitCode", () => {
  it("one line per check, a fix line under warnings and failures, a count", () => {
    const checks: DoctorCheck[] = [
      { name: "chromium", status: "ok", detail: "/usr/lib/chromium/chromium (Chromium 156)" },
      { name: "fonts", status: "warn", detail: "Noto Color Emoji is missing", fix: "apt-get install fonts-noto-color-emoji" },
      { name: "data directory", status: "fail", detail: "/x is a file", fix: "point dataDir at a directory" },
    ];
    expect(formatDoctor(checks)).toBe(
      [
        "ok    chromium        /usr/lib/chromium/chromium (Chromium 156)",
        "warn  fonts           Noto Color Emoji is missing",
        "      fix: apt-get install fonts-noto-color-emoji",
        "fail  data directory  /x is a file",
        "      fix: point dataDir at a directory",
        "1 ok, 1 warning, 1 failed",
        "",
      ].join("\n"),
    );
    expect(doctorExitCode(checks)).toBe(1);
    expect(doctorExitCode(checks.slice(0, 2))).toBe(0);
    expect(doctorExitCode([])).toBe(0);
  });
});
