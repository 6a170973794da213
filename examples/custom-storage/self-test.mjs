// Self-test of the custom storage (CI runs it; `storageContract` runs in the vitest suite): a real
// render through a renderer whose renders live in memory, read back, and no file written. Then the
// real server loads the storage by package name and serves a png from it (server-self-test.mjs).

import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { memoryStorage } from "./memory-storage.mjs";
import { serverSelfTest } from "./server-self-test.mjs";

const PAGE = `<!doctype html><body style="margin:0;background:rgb(0,128,255)"><h1>in memory</h1></body>`;

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const fixture = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
await new Promise((resolve) => fixture.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${fixture.address().port}/`;
const dataDir = await mkdtemp(join(tmpdir(), "renderkit-custom-storage-"));
let renderer;
try {
  renderer = await createRenderer({
    plugins: [playwright(), memoryStorage({ maxBytes: 64 * 1024 * 1024 })],
    dataDir,
    allowPrivateNetworks: [new URL(url).host],
    logger: new ConsoleLogger("silent"),
  });
  // pdf is built into the core; with format-image installed, png and the rest work the same way.
  const result = await renderer.render({ url, format: "pdf" });
  assert.equal(result.path, undefined, "a memory storage has no local path");
  const stored = await renderer.read(result.key);
  assert.equal(stored.contentType, "application/pdf");
  assert.equal(stored.size, result.size);
  const bytes = await readAll(stored.body);
  assert.equal(bytes.length, result.size);
  assert.equal(bytes.toString("latin1", 0, 5), "%PDF-");
  const range = await renderer.read(result.key, { start: 0, end: 3 });
  assert.equal((await readAll(range.body)).toString("latin1"), "%PDF");
  // Nothing went to the file storage the renderer would otherwise use.
  const files = await readdir(join(dataDir, "renders")).catch(() => []);
  assert.deepEqual(files, []);
  // One Chromium at a time: the embedded renderer's goes before the server starts its own.
  await renderer.close();
  renderer = undefined;
  const served = await serverSelfTest(PAGE);
  console.log(
    `self-test passed: a ${result.size}-byte pdf stored in memory and read back; in the server by package name: ` +
      `a ${served.size}-byte png served from memory, gone after a restart, the budget from its options`,
  );
} catch (error) {
  console.error(`self-test failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await renderer?.close();
  fixture.closeAllConnections();
  fixture.close();
  await rm(dataDir, { recursive: true, force: true });
}
