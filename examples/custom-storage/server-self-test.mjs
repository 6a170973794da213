// The server half of the self-test: the real server, started from a config file whose `plugins`
// names this example BY PACKAGE NAME as an operator would, keeps its renders in memory. The storage
// has no public or signed address, so the `renderUrl` the client gets is the server's own
// `/renders/<key>`, which reads the bytes back through the storage's `get` (whole, or a range).
// Then what "in memory" means for an operator: after a restart the render is gone (404), and the
// budget from the entry's `options` fails a render that does not fit: the client gets the
// server's generic storage failure, the operator's log the storage's own message.

import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { decodePng, RecordingLogger } from "@renderkit/core/testing";
import { loadConfig, startServer } from "@renderkit/server";

const PROJECT = {
  id: "demo",
  secretKey: "sk_example_storage_0123456789",
  publishableKey: "pk_example_storage",
  webhookSecret: "whsec_example_storage_0123456789",
};
const BLUE = [0, 128, 255, 255];

async function render(base, body) {
  const response = await fetch(`${base}/v1/render/sync`, {
    method: "POST",
    headers: { Authorization: `Bearer ${PROJECT.secretKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Starts the server from a config file naming this package, with the storage's `options`. */
async function start(dir, options, logger = new ConsoleLogger("silent")) {
  const configFile = join(dir, "renderkit.json");
  await writeFile(
    configFile,
    JSON.stringify({
      port: 0,
      host: "127.0.0.1",
      dataDir: join(dir, "data"),
      drainSeconds: 5,
      projects: [PROJECT],
      // The package name, resolved like any dependency of the server's working directory; its
      // default export is the factory. A STORAGE plugin replaces the configured `storage`.
      plugins: [{ module: "@renderkit/example-custom-storage", options }],
    }),
  );
  const config = await loadConfig({ file: configFile, env: {} });
  return startServer(config, { logger });
}

/** Renders `page` (HTML, a blue background) to png through the server and fetches it back. */
export async function serverSelfTest(page) {
  const dir = await mkdtemp(join(tmpdir(), "renderkit-custom-storage-server-"));
  let server;
  try {
    server = await start(dir, { maxBytes: 16 * 1024 * 1024 });
    const done = await render(server.url, { html: page, format: "png", width: 400, height: 300 });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const { renderUrl, size } = done.body;
    assert.ok(renderUrl.startsWith(`${server.url}/renders/`), `the server serves it: ${renderUrl}`);

    const response = await fetch(renderUrl);
    assert.equal(response.status, 200, `GET ${renderUrl}`);
    assert.equal(response.headers.get("content-type"), "image/png");
    const png = Buffer.from(await response.arrayBuffer());
    assert.equal(png.length, size);
    const image = decodePng(png);
    assert.deepEqual([image.width, image.height], [400, 300]);
    assert.deepEqual(image.pixel(390, 290), BLUE, "the page's background");

    // A range (video players, resumed downloads) goes to the storage's get(key, range).
    const head = await fetch(renderUrl, { headers: { Range: "bytes=0-7" } });
    assert.equal(head.status, 206);
    assert.equal(head.headers.get("content-range"), `bytes 0-7/${size}`);
    assert.deepEqual(Buffer.from(await head.arrayBuffer()), png.subarray(0, 8));
    // Nothing went to the file storage the server would otherwise use.
    assert.deepEqual(await readdir(join(dir, "data", "renders")).catch(() => []), []);

    // A restart (here with a budget too small for any render): the render is gone, and a render
    // that does not fit fails instead of evicting anything. A storage's words may name its
    // internals, so the client reads a generic failure and the server's log has the storage's message.
    await server.close();
    const log = new RecordingLogger();
    server = await start(dir, { maxBytes: 100 }, log);
    const gone = await fetch(`${server.url}${new URL(renderUrl).pathname}`);
    assert.equal(gone.status, 404, "renders in memory do not outlive the process");
    await gone.arrayBuffer();
    const full = await render(server.url, { html: page, format: "png", width: 400, height: 300 });
    assert.equal(full.status, 500, JSON.stringify(full.body));
    assert.match(full.body.error.message, /^The render could not be stored: the storage failed/);
    assert.doesNotMatch(full.body.error.message, /memory storage/);
    const logged = log.entries.map((entry) => JSON.stringify(entry.fields)).join("\n");
    assert.match(logged, /memory storage is full \(100 bytes\)/, "the operator's log has the storage's message");
    return { size };
  } finally {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
