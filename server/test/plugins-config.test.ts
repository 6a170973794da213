import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { PluginManifest } from "@renderkit/core";
import { describe, expect, it } from "vitest";
import { freePort } from "../../test/helpers/redis.js";
import { ConfigError } from "../dist/config/index.js";
import { startServer } from "../dist/serve.js";
import { api, startTestServer } from "./helpers.js";
import { configOf, PROJECT, refusal, run, settings, silent, useProcesses } from "./processes.js";

/**
 * Third-party plugins named in the configuration (issue 10: `plugins`), as an operator adds
 * them: the example `txt` format plugin by absolute path, by a path relative to the config
 * file, and handed to `startServer` by an embedding program; broken entries stop the start.
 */

const TEXT_FORMAT = fileURLToPath(new URL("../../examples/format-plugin/text-format.mjs", import.meta.url));
const NOT_A_FACTORY = fileURLToPath(new URL("./fixtures/not-a-factory.mjs", import.meta.url));
const NAMED_EXPORT = fileURLToPath(new URL("./fixtures/named-plugin-export.mjs", import.meta.url));
/** The page every test renders: its visible text is longer than the 5 characters the plugin keeps. */
const PAGE = "<!doctype html><body><p>Hello, renderkit plugins!</p><script>document.title = 'x'</script></body>";

const { cleanup, fresh, server, serveProcess } = useProcesses("renderkit-plugins-");

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

/** Whether nothing listens on `port` (a failed start closed its listener). */
function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("a plugin from the config's plugins", () => {
  it("by absolute path with options: txt renders, cut to maxChars", async () => {
    const token = "operator-token-0123456789abcdef";
    const test = await startTestServer({ plugins: [{ module: TEXT_FORMAT, options: { maxChars: 5 } }], metrics: { token } });
    cleanup.push(() => test.close());
    // The formats are among /ready's figures, shown with the operator's (metrics) token.
    const ready = await api(test.url, "/ready", { headers: { authorization: `Bearer ${token}` } });
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
    await serveProcess(relative(at, file), url, at);
    const { text, answer } = await renderText(url);
    expect(text).toBe("Hello");
    expect(answer.body.truncated).toBe(true);
  });

  it("embedding: startServer(config, { plugins: [textFormat()] })", async () => {
    const textFormat = await textFormatFactory();
    const running = await server(await configOf(settings(await fresh("embed"))), { plugins: [textFormat({ maxChars: 5 })] });
    expect(running.renderer.formats).toContain("txt");
    expect((await renderText(running.url)).text).toBe("Hello");
  });

  it("embedding without options: the plugin's own limit applies", async () => {
    const textFormat = await textFormatFactory();
    const running = await server(await configOf(settings(await fresh("embed-default"))), { plugins: [textFormat()] });
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
