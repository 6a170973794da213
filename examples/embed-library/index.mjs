// A small Node service that embeds renderkit: GET /shot?url=...&format=png|pdf answers with the
// rendered bytes. `node index.mjs --self-test` renders a local fixture page through it and checks
// the results (CI runs this).

import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createRenderer, isRenderError } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";

/** Codes that mean the request was wrong rather than the render. */
const CLIENT_ERRORS = new Set(["InvalidOptions", "InvalidURLError", "NoUrlSupplied", "URLDoesNotResolveError"]);

/** The HTTP service. Every query parameter is a render option (`width`, `full_page`, ...). */
function shotService(renderer) {
  return createServer(async (req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" || pathname !== "/shot") {
      return sendJson(res, 404, { error: { message: "Try GET /shot?url=https://example.com&format=png", code: "NotFound" } });
    }
    try {
      const result = await renderer.render(Object.fromEntries(searchParams));
      const stored = await renderer.read(result.key);
      res.writeHead(200, { "Content-Type": stored.contentType, "Content-Length": stored.size });
      await pipeline(stored.body, res);
    } catch (error) {
      if (res.headersSent) return res.destroy();
      const status = isRenderError(error) && CLIENT_ERRORS.has(error.code) ? 400 : 500;
      sendJson(res, status, { error: { message: error.message, code: error.code ?? "Error" } });
    }
  });
}

function sendJson(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}

async function listen(server, port = 0) {
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return server.address().port;
}

function stop(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Serve mode: private addresses stay refused, as in any real deployment. */
async function serve() {
  const renderer = await createRenderer({ plugins: [playwright(), imageFormats()] });
  const service = shotService(renderer);
  const port = await listen(service, Number(process.env.PORT ?? 0));
  console.log(`listening: curl -o shot.png 'http://127.0.0.1:${port}/shot?url=https://example.com&format=png'`);
  const shutdown = async () => {
    await stop(service);
    await renderer.close();
  };
  process.once("SIGINT", shutdown).once("SIGTERM", shutdown);
}

const PAGE = `<!doctype html><title>fixture</title>
<body style="font-family: sans-serif; background: #f4f1ea">
  <h1 style="color: #2b4c7e">Hello from renderkit</h1><p>Rendered through the embed-library example.</p>
</body>`;

async function fetchBytes(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(90_000) });
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${body.toString("utf8", 0, 300)}`);
  return body;
}

/** Self-test: a fixture page on loopback, rendered to PNG and PDF through our own endpoint. */
async function selfTest() {
  const fixture = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
  const fixturePort = await listen(fixture);
  const dataDir = await mkdtemp(join(tmpdir(), "renderkit-example-"));
  let renderer;
  let service;
  try {
    // Loopback is refused by default; the test allows exactly its fixture server.
    renderer = await createRenderer({
      plugins: [playwright(), imageFormats()],
      dataDir,
      allowPrivateNetworks: [`127.0.0.1:${fixturePort}`],
    });
    service = shotService(renderer);
    const port = await listen(service);
    const shot = `http://127.0.0.1:${port}/shot?url=${encodeURIComponent(`http://127.0.0.1:${fixturePort}/`)}`;

    const png = await fetchBytes(`${shot}&format=png`);
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    if (!png.subarray(0, 8).equals(signature) || png.toString("latin1", 12, 16) !== "IHDR") throw new Error("not a PNG");
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    if (width !== 1280 || height !== 1024) throw new Error(`PNG is ${width}x${height}, expected 1280x1024`);

    const pdf = await fetchBytes(`${shot}&format=pdf`);
    if (pdf.toString("latin1", 0, 5) !== "%PDF-") throw new Error("not a PDF");

    console.log(`self-test passed: png ${width}x${height} (${png.length} bytes), pdf (${pdf.length} bytes)`);
  } finally {
    if (service) await stop(service);
    await stop(fixture);
    await renderer?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--self-test")) {
  selfTest()
    .catch((error) => {
      console.error(`self-test failed: ${error.code ? `${error.code}: ` : ""}${error.message}`);
      process.exitCode = 1;
    })
    // Everything is closed by now; a handle that still keeps Node alive must not hang CI.
    .finally(() => setTimeout(() => process.exit(), 5_000).unref());
} else {
  serve().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
