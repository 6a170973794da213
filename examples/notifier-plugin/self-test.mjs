// Self-test of the notifier plugin (CI runs it; `notifierContract` runs in the vitest suite): the
// real server, started from a config file whose `plugins` names this example BY PACKAGE NAME as an
// operator would, renders a page and fails another; both ends must arrive in the file as JSON lines.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { loadConfig, startServer } from "@renderkit/server";

const PROJECT = {
  id: "demo",
  secretKey: "sk_example_notifier_0123456789",
  publishableKey: "pk_example_notifier",
  webhookSecret: "whsec_example_notifier_0123456789",
};
/** How long a line may take to arrive after the render's answer (notifiers run after the record). */
const LINE_DEADLINE_MS = 15_000;

/** The lines of `file` for `renderId`, waiting until one is there. */
async function linesFor(file, renderId) {
  const deadline = Date.now() + LINE_DEADLINE_MS;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    assert.ok(text === "" || text.endsWith("\n"), "every line is complete");
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.renderId === renderId);
    if (lines.length > 0) return lines;
    if (Date.now() > deadline) throw new Error(`no line for ${renderId} in ${file}:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(base, path, body) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${PROJECT.secretKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const dir = await mkdtemp(join(tmpdir(), "renderkit-notifier-plugin-"));
let server;
try {
  const dataDir = join(dir, "data");
  const configFile = join(dir, "renderkit.json");
  await writeFile(
    configFile,
    JSON.stringify({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      drainSeconds: 5,
      projects: [PROJECT],
      // The package name, resolved like any dependency of the server's working directory.
      plugins: [{ module: "@renderkit/example-notifier-plugin", options: { file: "events/renders.jsonl" } }],
    }),
  );
  const config = await loadConfig({ file: configFile, env: {} });
  server = await startServer(config, { logger: new ConsoleLogger("silent") });
  const file = join(dataDir, "events", "renders.jsonl");

  // A render that succeeds: the line carries the address the client got, and the project.
  const done = await call(server.url, "/v1/render/sync", { html: "<h1>Hello, notifier</h1>", format: "pdf" });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  const [succeeded, ...again] = await linesFor(file, done.body.renderId);
  assert.equal(again.length, 0, "one line per render");
  assert.equal(succeeded.event, "render.succeeded");
  assert.equal(succeeded.projectId, PROJECT.id, "the line names the project (event.job.projectId)");
  assert.equal(succeeded.result.renderUrl, done.body.renderUrl);
  assert.equal(succeeded.result.size, done.body.size);
  assert.equal(succeeded.result.format, "pdf");
  assert.ok(!Number.isNaN(Date.parse(succeeded.at)), `at is a date: ${succeeded.at}`);
  assert.equal(succeeded.result.path, undefined, "no local path in the log");
  const pdf = await fetch(succeeded.result.renderUrl);
  assert.equal(pdf.status, 200);
  assert.equal(Buffer.from(await pdf.arrayBuffer()).toString("latin1", 0, 5), "%PDF-");

  // A render that fails (async: the client learns of it later): the line carries the error code.
  const queued = await call(server.url, "/v1/render/async", {
    html: '<p class="error">Out of stock</p>',
    format: "pdf",
    wait_for: ".error",
    fail_if_selector_present: true,
  });
  assert.equal(queued.status, 201, JSON.stringify(queued.body));
  const [failed] = await linesFor(file, queued.body.renderId);
  assert.equal(failed.event, "render.failed");
  assert.equal(failed.projectId, PROJECT.id);
  assert.equal(typeof failed.error.code, "string");
  assert.ok(failed.error.message.length > 0);
  console.log(`self-test passed: loaded by package name; ${succeeded.event} and ${failed.event} (${failed.error.code}) logged`);
} catch (error) {
  console.error(`self-test failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
}
