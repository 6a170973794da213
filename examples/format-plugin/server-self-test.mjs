// The server half of the self-test: the real server, started from a config file whose `plugins`
// names this example BY PACKAGE NAME (with options) as an operator would, renders `format: "txt"`
// through the HTTP API. What a client checks: the file at `renderUrl` is the page's text, the
// plugin's option works from JSON, and the operator's cap (`maxChars`) is a 400 naming the option.

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { loadConfig, startServer } from "@renderkit/server";

const PROJECT = {
  id: "demo",
  secretKey: "sk_example_format_0123456789",
  publishableKey: "pk_example_format",
  webhookSecret: "whsec_example_format_0123456789",
};
/** The operator's cap in the config; the plugin's own default is far higher, so a 400 at 5001 proves the options arrived. */
const MAX_CHARS = 5_000;
/** The operator's token (`metrics.token`): `/ready` shows its figures only with it. */
const OPERATOR_TOKEN = "operator-token-for-the-self-test-0123456789";

async function render(base, body) {
  const response = await fetch(`${base}/v1/render/sync`, {
    method: "POST",
    headers: { Authorization: `Bearer ${PROJECT.secretKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The rendered file, fetched from the `renderUrl` the server answered with. */
async function download(renderUrl) {
  const response = await fetch(renderUrl);
  assert.equal(response.status, 200, `GET ${renderUrl}`);
  assert.equal(response.headers.get("content-type"), "text/plain; charset=utf-8");
  return response.text();
}

/** Starts the server with this package in its `plugins`, renders `page` (HTML) to txt, stops it. */
export async function serverSelfTest(page) {
  const dir = await mkdtemp(join(tmpdir(), "renderkit-format-plugin-server-"));
  let server;
  try {
    const configFile = join(dir, "renderkit.json");
    await writeFile(
      configFile,
      JSON.stringify({
        port: 0,
        host: "127.0.0.1",
        dataDir: join(dir, "data"),
        drainSeconds: 5,
        projects: [PROJECT],
        // `/ready` shows its figures (the formats among them) to the operator only.
        metrics: { token: OPERATOR_TOKEN },
        // The package name, resolved like any dependency of the server's working directory; its
        // default export is the factory, called with `options`.
        plugins: [{ module: "@renderkit/example-format-plugin", options: { maxChars: MAX_CHARS } }],
      }),
    );
    const config = await loadConfig({ file: configFile, env: {} });
    server = await startServer(config, { logger: new ConsoleLogger("silent") });

    const ready = await (await fetch(`${server.url}/ready`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json();
    assert.ok(ready.formats.includes("txt"), `GET /ready lists txt: ${ready.formats}`);
    const openapi = await (await fetch(`${server.url}/v1/openapi.json`)).text();
    assert.match(openapi, /txt_max_chars/, "the OpenAPI document lists the plugin's option");

    // The whole text: block elements on their own lines, hidden and script text left out.
    const whole = await render(server.url, { html: page, format: "txt" });
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    const text = await download(whole.body.renderUrl);
    assert.equal(text, "Quarterly report\n\nSales went up.\n\nBuilt by script");
    assert.equal(whole.body.size, Buffer.byteLength(text));
    assert.equal(whole.body.characters, text.length, "the formatter's extras reach the API result");
    assert.equal(whole.body.truncated, false);

    // The plugin's option from a JSON body (a numeric string, as form bodies send it).
    const cut = await render(server.url, { html: page, format: "txt", txt_max_chars: "9" });
    assert.equal(cut.status, 200, JSON.stringify(cut.body));
    assert.equal(await download(cut.body.renderUrl), "Quarterly");
    assert.equal(cut.body.truncated, true);

    // Above the operator's cap: refused before anything is queued, naming the option.
    const over = await render(server.url, { html: page, format: "txt", txt_max_chars: MAX_CHARS + 1 });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(over.body.error.code, "InvalidOptions");
    assert.match(over.body.error.message, /txt_max_chars/);
    assert.match(over.body.error.message, new RegExp(`at most ${MAX_CHARS}`));
    assert.equal(typeof over.body.requestId, "string");
  } finally {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
