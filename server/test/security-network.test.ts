import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConfig } from "../dist/config/index.js";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

/*
 * Issue 14, finding 8: "100 `block_urls` patterns of 2,048 characters stalled `/health` for
 * seconds". The patterns are matched without regular expressions now, in time linear in the
 * address, and their total size is capped: such a request is refused at once, and a render with
 * long patterns within the cap leaves the server answering while it runs. Nothing here measures
 * time: `/health` is asked while the render is held open by the test (a gated image), so an
 * answer proves the server was free.
 *
 * Also the egress caps as the server applies them: `egress` in the configuration reaches every
 * render, and a page over the byte cap answers 400 `HTMLProcessError`.
 */

const A = PROJECT_A.secretKey;

/** The target site: `/page` loads 40 images with long addresses, the last of which waits for `open()`. */
async function gatedSite(): Promise<{ url: string; gateReached: Promise<void>; open(): void; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  let opened = false;
  let reached: () => void = () => undefined;
  const gateReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const long = "a".repeat(1500);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/page") {
      const images = Array.from({ length: 40 }, (_, i) => `<img width=1 height=1 src="/img/${i}/${long}.png?q=${long}">`);
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(`<!doctype html><body>${images.join("")}<img src="/gate.png"></body>`);
    }
    if (path === "/endless") {
      res.writeHead(200, { "content-type": "text/html" });
      const chunk = `<!--${"x".repeat(64 * 1024)}-->`;
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {
          // Fill the socket's buffer, then wait for it to drain.
        }
      };
      res.on("drain", pump);
      return pump();
    }
    if (path === "/gate.png") {
      reached();
      if (opened) return res.writeHead(204).end();
      return void held.push(res);
    }
    res.writeHead(204).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gateReached,
    open() {
      opened = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: TestServer;
let site: Awaited<ReturnType<typeof gatedSite>>;

beforeAll(async () => {
  site = await gatedSite();
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

describe("block_urls cannot stall the server", () => {
  it("the issue's request (100 patterns of 2,048 characters) is refused with 400 InvalidOptions, and /health answers meanwhile", async () => {
    const patterns = Array.from({ length: 100 }, (_, i) => `${"*a".repeat(1023)}${i % 10}*`.slice(0, 2048));
    const pending = api(server.url, "/v1/render/sync", { key: A, json: { url: `${site.url}/page`, block_urls: patterns } });
    const health = await api(server.url, "/health");
    expect(health.status).toBe(200);
    const answer = await pending;
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("InvalidOptions");
    expect(answer.body.error.message).toMatch(/^Option block_urls has 204,800 characters in all; at most 32,768 are allowed$/);
    expect((await api(server.url, "/health")).status).toBe(200);
  });

  it("patterns up to the cap (16 address patterns of ~2,047 characters, full of wildcards) render, and /health answers while the render runs", async () => {
    const patterns = Array.from({ length: 16 }, (_, i) => `*/${"a*".repeat(1021)}b${i}`);
    const pending = api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: `${site.url}/page`, width: 300, height: 200, block_urls: patterns, wait_until: "requestsfinished" },
    });
    // The page is loaded and its images went through the filter; the render waits for the gate.
    await site.gateReached;
    const health = await api(server.url, "/health");
    expect(health.status).toBe(200);
    site.open();
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.body.size).toBeGreaterThan(0);
  });
});

describe("egress caps from the configuration", () => {
  it("a page over egress.maxBytes answers 400 HTMLProcessError, and the server goes on", async () => {
    const capped = await startTestServer({ egress: { maxBytes: 1_048_576 } });
    try {
      const answer = await api(capped.url, "/v1/render/sync", {
        key: A,
        json: { url: `${site.url}/endless`, width: 300, height: 200 },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({
        code: "HTMLProcessError",
        message: "The page received more than 1 MiB from the network, this server's limit per render; the render was stopped",
      });
      expect((await api(capped.url, "/health")).status).toBe(200);
    } finally {
      await capped.close();
    }
  });

  it("caps that would stall ordinary pages or refuse everything are configuration errors", () => {
    expect(() => checkConfig({ egress: { maxConnections: 8 } })).toThrow(
      "egress.maxConnections must be an integer from 64 to 10000",
    );
    expect(() => checkConfig({ egress: { maxBytes: 1000 } })).toThrow("egress.maxBytes must be an integer from 1048576 to");
    expect(() => checkConfig({ egress: { maxSockets: 10 } })).toThrow("egress.maxSockets is not a known key");
    expect(checkConfig({ egress: { maxBytes: 10_485_760 } }).egress).toEqual({ maxBytes: 10_485_760, maxConnections: 256 });
  });
});
