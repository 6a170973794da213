import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConsoleLogger, type PluginManifest } from "@renderkit/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../test/helpers/redis.js";
import { ConfigError, loadConfig } from "../dist/config.js";
import { type RunningServer, startServer } from "../dist/serve.js";
import type { ServerConfig } from "../dist/types.js";
import { api, PROJECT_A, startTestServer } from "./helpers.js";

/**
 * Third-party plugins named in the configuration (issue 10: `plugins`), as an operator adds
 * them: the example `txt` format plugin by absolute path, by a path relative to the config
 * file, and handed to `startServer` by an embedding program; broken entries stop the start.
 */

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const TEXT_FORMAT = fileURLToPath(new URL("../../examples/format-plugin/text-format.mjs", import.meta.url));
const NOT_A_FACTORY = fileURLToPath(new URL("./fixtures/not-a-factory.mjs", import.meta.url));
const NAMED_EXPORT = fileURLToPath(new URL("./fixtures/named-plugin-export.mjs", import.meta.url));
const silent = new ConsoleLogger("silent");
const PROJECT = { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } };
/** The page every test renders: its visible text is longer than the 5 characters the plugin keeps. */
const PAGE = "<!doctype html><body><p>Hello, renderkit plugins!</p><script>document.title = 'x'</script></body>";

let dir: string;
let cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-plugins-"));
});
afterEach(async () => {
  const steps = cleanups.reverse();
  cleanups = [];
  for (const step of steps) await step().catch(() => undefined);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function fresh(name: string): Promise<string> {
  const path = join(dir, `${name}-${n++}`);
  await mkdir(path, { recursive: true });
  return path;
}

/** The settings of a one-project loopback server in file mode, in its own data directory. */
function settings(dataDir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    port: 0,
    host: "127.0.0.1",
    dataDir,
    allowPrivateNetworks: ["127.0.0.1"],
    drainSeconds: 5,
    projects: [PROJECT],
    ...extra,
  };
}

const configOf = (values: Record<string, unknown>): Promise<ServerConfig> =>
  loadConfig({ env: {}, overrides: values as Partial<ServerConfig> });

async function server(config: ServerConfig, plugins?: PluginManifest[]): Promise<RunningServer> {
  const running = await startServer(config, { logger: silent, plugins });
  cleanups.push(() => running.close());
  return running;
}

/** `format: "txt"` through `/v1/render/sync`; the answer and the text behind its `renderUrl`. */
async function renderText(base: string, options: Record<string, unknown> = {}) {
  const answer = await api(base, "/v1/render/sync", { key: PROJECT.secretKey, json: { html: PAGE, format: "txt", ...options } });
  expect(answer.status, answer.text).toBe(200);
  const file = await fetch(answer.body.renderUrl);
  expect(file.status).toBe(200);
  return { answer, type: file.headers.get("content-type"), text: await file.text() };
}

/** The example's factory, loaded as an embedding program would import it. */
async function textFormatFactory(): Promise<(settings?: { maxChars?: number }) => PluginManifest> {
  const module = (await import(pathToFileURL(TEXT_FORMAT).href)) as {
    textFormat: (settings?: { maxChars?: number }) => PluginManifest;
  };
  return module.textFormat;
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** Whether nothing listens on `port` (a failed start closed its listener). */
function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("RENDERKIT_") && name !== "RENDERKIT_CHROMIUM") delete env[name];
  for (const name of ["PORT", "HOST"]) delete env[name];
  return { ...env, RENDERKIT_LOG_LEVEL: "warn" };
}

function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv(), cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const exited = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));

/** `renderkit serve --config <file>` from `cwd`, ready once `/health` answers; stopped after the test. */
async function serveProcess(file: string, cwd: string, url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, "serve", "--config", file], {
    env: childEnv(),
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited(child);
    clearTimeout(timer);
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`renderkit serve exited with ${child.exitCode}:\n${output}`);
    const up = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a plugin from the config's plugins", () => {
  it("by absolute path with options: txt renders, cut to maxChars", async () => {
    const test = await startTestServer({ plugins: [{ module: TEXT_FORMAT, options: { maxChars: 5 } }] });
    cleanups.push(() => test.close());
    const ready = await api(test.url, "/ready");
    expect(ready.body.formats).toContain("txt");
    const { answer, type, text } = await renderText(test.url);
    expect(text).toBe("Hello");
    expect(type).toBe("text/plain; charset=utf-8");
    expect(answer.body).toMatchObject({ characters: 5, truncated: true });
    // Its own option joins the request schema, bounded by the configured maxChars.
    expect((await renderText(test.url, { txt_max_chars: 3 })).text).toBe("Hel");
    const tooMany = await api(test.url, "/v1/render/sync", {
      key: PROJECT.secretKey,
      json: { html: PAGE, format: "txt", txt_max_chars: 6 },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe("InvalidOptions");
  });

  it("as a plain string naming a module whose `plugin` export is the factory", async () => {
    const running = await server(await configOf(settings(await fresh("named"), { plugins: [NAMED_EXPORT] })));
    const { text } = await renderText(running.url);
    expect(text).toBe("Hello, renderkit plugins!");
  });

  it("renderkit serve --config with a path relative to the config file, run from another directory", async () => {
    const at = await fresh("cli");
    const confDir = join(at, "etc", "renderkit");
    await mkdir(confDir, { recursive: true });
    const module = relative(confDir, TEXT_FORMAT);
    expect(module.startsWith("..")).toBe(true);
    const port = await freePort();
    const file = join(confDir, "renderkit.json");
    await writeFile(
      file,
      JSON.stringify({
        ...settings(join(at, "data"), { port }),
        plugins: [{ module, options: { maxChars: 5 } }],
      }),
    );
    // From `at`, the same relative path names nothing: only the file's directory makes it work.
    const url = `http://127.0.0.1:${port}`;
    await serveProcess(relative(at, file), at, url);
    const { text, answer } = await renderText(url);
    expect(text).toBe("Hello");
    expect(answer.body.truncated).toBe(true);
  });

  it("embedding: startServer(config, { plugins: [textFormat()] })", async () => {
    const textFormat = await textFormatFactory();
    const running = await server(await configOf(settings(await fresh("embed"))), [textFormat({ maxChars: 5 })]);
    expect(running.renderer.formats).toContain("txt");
    expect((await renderText(running.url)).text).toBe("Hello");
  });

  it("embedding without options: the plugin's own limit applies", async () => {
    const textFormat = await textFormatFactory();
    const running = await server(await configOf(settings(await fresh("embed-default"))), [textFormat()]);
    expect((await renderText(running.url)).text).toBe("Hello, renderkit plugins!");
  });
});

describe("a broken plugin entry stops the start", () => {
  it("startServer: a missing module is a ConfigError naming plugins[0]; nothing is left listening or locked", async () => {
    const dataDir = await fresh("missing");
    const port = await freePort();
    const missing = join(dataDir, "no-such-plugin.mjs");
    const error = await refusal(startServer(await configOf(settings(dataDir, { port, plugins: [missing] })), { logger: silent }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^plugins\[0\] \(.*no-such-plugin\.mjs\) could not be loaded: /);
    const unknownPackage = await refusal(
      startServer(await configOf(settings(dataDir, { plugins: ["renderkit-plugin-that-is-not-installed"] })), { logger: silent }),
    );
    expect(unknownPackage).toBeInstanceOf(ConfigError);
    expect(unknownPackage.message).toMatch(/^plugins\[0\] \(renderkit-plugin-that-is-not-installed\) could not be loaded: /);
    // The failed starts gave back the port and the data directory.
    expect(await portFree(port)).toBe(true);
    const after = await server(await configOf(settings(dataDir, { port })));
    expect((await fetch(`${after.url}/health`)).status).toBe(200);
  });

  it("startServer: a default export that is not a factory is a ConfigError naming plugins[0]", async () => {
    const dataDir = await fresh("not-factory");
    const config = await configOf(settings(dataDir, { plugins: [{ module: NOT_A_FACTORY }] }));
    const error = await refusal(startServer(config, { logger: silent }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`plugins[0] (${NOT_A_FACTORY}) must export a plugin factory`);
    // Options given to something that cannot take them: refused too, naming the entry.
    const withOptions = await configOf(settings(dataDir, { plugins: [{ module: NOT_A_FACTORY, options: { maxChars: 5 } }] }));
    const optionsError = await refusal(startServer(withOptions, { logger: silent }));
    expect(optionsError).toBeInstanceOf(ConfigError);
    expect(optionsError.message).toMatch(/^plugins\[0\] /);
  });

  it("renderkit serve: exit code 2 and a message naming plugins[0], for a missing module and a non-factory", async () => {
    const at = await fresh("cli-broken");
    const confDir = join(at, "conf");
    await mkdir(confDir);
    const cases = [
      { entry: "./missing-plugin.mjs", expected: `plugins[0] (${join(confDir, "missing-plugin.mjs")}) could not be loaded` },
      {
        entry: relative(confDir, NOT_A_FACTORY),
        expected: `plugins[0] (${NOT_A_FACTORY}) must export a plugin factory as its default export or as "plugin"`,
      },
    ];
    for (const { entry, expected } of cases) {
      const file = join(confDir, "renderkit.json");
      await writeFile(file, JSON.stringify({ ...settings(join(at, "data")), plugins: [entry] }));
      const result = await run(["serve", "--config", file], at);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`renderkit: invalid config: ${expected}`);
      expect(result.stdout).not.toContain("listening on");
    }
  });
});
