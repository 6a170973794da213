import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../dist/config/index.js";
import { authenticate } from "../dist/http/auth.js";
import { ProjectStore } from "../dist/projects/store.js";
import { api, startTestServer } from "./helpers.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const START = fileURLToPath(new URL("../../scripts/start.sh", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-cli-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env };
  for (const name of ["RENDERKIT_CONFIG", "RENDERKIT_MASTER_KEY", "RENDERKIT_DATA_DIR", "PORT", "HOST", "RENDERKIT_LOG_LEVEL"])
    delete base[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...base, RENDERKIT_DATA_DIR: dir, ...env }, cwd: dir, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const field = (text: string, label: string) => text.match(new RegExp(`${label}:\\s+(\\S+)`))?.[1];

describe("renderkit CLI", () => {
  it("projects create prints the keys once; projects list shows the project without secrets", async () => {
    const created = await run(["projects", "create", "--name", "x"]);
    expect(created.code).toBe(0);
    const id = field(created.stdout, "id");
    const secretKey = field(created.stdout, "secret key");
    const publishableKey = field(created.stdout, "publishable key");
    const webhookSecret = field(created.stdout, "webhook secret");
    expect(id).toBe("x");
    expect(secretKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(publishableKey).toMatch(/^pk_[A-Za-z0-9_-]{22}$/);
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    // Only the project asked for: no default project appeared behind the operator's back.
    const stored = await readFile(join(dir, "projects.json"), "utf8");
    expect(JSON.parse(stored).projects.map((p: { id: string }) => p.id)).toEqual(["x"]);
    expect(stored).not.toContain(secretKey);

    const listed = await run(["projects", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+PUBLISHABLE KEY\s+ENABLED/);
    expect(listed.stdout).toMatch(new RegExp(`^x\\s+x\\s+${publishableKey}\\s+yes$`, "m"));
    expect(listed.stdout).not.toContain(secretKey);
    expect(listed.stdout).not.toContain(webhookSecret);

    const json = await run(["projects", "list", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual([{ id: "x", name: "x", publishableKey, enabled: true }]);

    // The server side (same data dir) accepts the printed secret key.
    const { store } = await ProjectStore.open(await loadConfig({ env: {}, overrides: { dataDir: dir } }));
    expect(authenticate(`Bearer ${secretKey}`, store).id).toBe("x");
    expect(store.byId("x")?.webhookSecret).toBe(webhookSecret);
  });

  it("projects disable and enable switch a project's keys off and on, and a running server's store follows", async () => {
    const created = await run(["projects", "create", "--name", "y"]);
    const secretKey = field(created.stdout, "secret key");
    // The store of a server already running on the same data directory.
    const { store } = await ProjectStore.open(await loadConfig({ env: {}, overrides: { dataDir: dir } }));
    expect(authenticate(`Bearer ${secretKey}`, store).id).toBe("y");

    const disabled = await run(["projects", "disable", "y"]);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain('Project "y" is disabled');
    expect((await run(["projects", "list"])).stdout).toMatch(/^y\s+y\s+\S+\s+no$/m);
    expect(await store.refreshIfChanged(Date.now() + 5_000)).toBe(true);
    expect(() => authenticate(`Bearer ${secretKey}`, store)).toThrow(expect.objectContaining({ code: "ProjectNotEnabled" }));

    expect((await run(["projects", "enable", "y"])).code).toBe(0);
    expect(await store.refreshIfChanged(Date.now() + 10_000)).toBe(true);
    expect(authenticate(`Bearer ${secretKey}`, store).id).toBe("y");

    const unknown = await run(["projects", "disable", "nope"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No project with id "nope"');
    const missing = await run(["projects", "disable"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("needs the project's id");
  });

  it("projects list on an empty data directory says so and creates nothing", async () => {
    const listed = await run(["projects", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("No projects yet");
    await expect(readFile(join(dir, "projects.json"))).rejects.toThrow();
  });

  it("projects create refuses when the config file defines the projects", async () => {
    const file = join(dir, "config.json");
    const project = {
      id: "a",
      secretKey: "sk_test_a_0123456789abcdef",
      publishableKey: "pk_test_a",
      webhookSecret: "whsec_a_0123456789abcdef",
    };
    await writeFile(file, JSON.stringify({ projects: [project] }));
    const result = await run(["projects", "create", "--name", "y", "--config", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Projects are defined in the config file");
    const listed = await run(["projects", "list"], { RENDERKIT_CONFIG: file });
    expect(listed.stdout).toContain("pk_test_a");
    expect(listed.stdout).not.toContain(project.secretKey);
  });

  it("an invalid config file exits 2 naming the key", async () => {
    const file = join(dir, "config.json");
    await writeFile(file, JSON.stringify({ rateLimit: { requests: 0, perSeconds: 60 } }));
    for (const args of [
      ["projects", "list", "--config", file],
      ["serve", "--config", file],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("renderkit: invalid config: rateLimit.requests must be a positive integer");
      expect(result.stderr).toContain(file);
    }
    const unknown = await run(["projects", "list"], { RENDERKIT_CONFIG: file.replace("config", "missing") });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("renderkit: invalid config: cannot read config file");
  });

  it("usage: --help exits 0, unknown commands and options exit 2", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: renderkit <command>");
    expect((await run(["projects", "list", "--help"])).code).toBe(0);
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command: frobnicate");
    expect(unknown.stderr).toContain("Usage: renderkit");
    expect((await run(["projects", "delete"])).code).toBe(2);
    expect((await run(["projects", "list", "--bogus"])).code).toBe(2);
    const missingName = await run(["projects", "create"]);
    expect(missingName.code).toBe(2);
    expect(missingName.stderr).toContain("projects create needs --name NAME");
    const badPort = await run(["serve", "--port", "http"]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("--port must be an integer from 0 to 65535");
    expect((await run([])).code).toBe(2);
  });

  it("a running server accepts the keys of a project the CLI creates, without a restart", async () => {
    const server = await startTestServer({ projects: [] }, dir);
    try {
      // In the redis test mode the projects live in the server's Redis: the CLI is pointed there.
      const shared = server.config.redis;
      const configFile = join(dir, "cli-config.json");
      if (shared) await writeFile(configFile, JSON.stringify({ dataDir: dir, redis: shared }));
      const created = await run(["projects", "create", "--name", "later", ...(shared ? ["--config", configFile] : [])]);
      expect(created.code).toBe(0);
      const secretKey = field(created.stdout, "secret key") as string;
      const answer = await api(server.url, "/v1/render/does-not-exist", { key: secretKey });
      expect(answer.status).toBe(404);
      expect(answer.body.status).toBe("not-found");
      // Still refused: a key nobody made.
      expect((await api(server.url, "/v1/render/x", { key: "sk_nobody_made_this_key_0000" })).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("npm start's script serves on the config file's settings, its dataDir included", async () => {
    const file = join(dir, "config.json");
    const dataDir = join(dir, "from-config");
    await writeFile(file, JSON.stringify({ port: 0, host: "127.0.0.1", dataDir }));
    const env: NodeJS.ProcessEnv = { ...process.env, RENDERKIT_SKIP_APT: "1", INIT_CWD: dir };
    for (const name of ["RENDERKIT_CONFIG", "RENDERKIT_DATA_DIR", "PORT", "HOST"]) delete env[name];
    const child = spawn("bash", [START, "--config", file], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening" line in time: ${out}`)), 60_000);
        child.stdout.on("data", () => {
          if (out.includes("listening on")) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on("exit", (code) => reject(new Error(`start.sh exited with ${code}: ${out}`)));
      });
      const stored = JSON.parse(await readFile(join(dataDir, "projects.json"), "utf8"));
      expect(stored.projects.map((p: { id: string }) => p.id)).toEqual(["default"]);
      const secretKey = field(out, "secret key");
      const base = out.match(/listening on (\S+)/)?.[1];
      const answer = await fetch(`${base}/v1/render/none`, { headers: { authorization: `Bearer ${secretKey}` } });
      expect(answer.status).toBe(404);
    } finally {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)));
    }
  }, 90_000);
});
