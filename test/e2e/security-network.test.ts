import { createHash } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type FixtureRoute, type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectRenderError } from "../helpers/errors.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/*
 * Issue 14, finding 8: the network defences around a render, as a caller or a hostile page sees
 * them, on both engines.
 * - `headers` reach the target's origin only (a third party never sees the caller's secrets);
 * - loopback requests of a page go through the egress proxy and its address policy on both
 *   engines: Playwright's own habit of adding `<-loopback>` is switched off below, so only the
 *   engine's explicit bypass list keeps them in;
 * - the egress caps per render: an endless stream (the page itself, or a download after load)
 *   ends the render with a clear 400; a page opening 100 WebSockets at once never has more than
 *   the cap open, yet all of them get through; the renderer keeps working.
 */
const FORCED_LOOPBACK = "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK";
const forcedLoopback = process.env[FORCED_LOOPBACK];
process.env[FORCED_LOOPBACK] = "1";
afterAll(() => {
  if (forcedLoopback === undefined) delete process.env[FORCED_LOOPBACK];
  else process.env[FORCED_LOOPBACK] = forcedLoopback;
});

/** `localhost` and `*.test` are this machine (other origins than 127.0.0.1); nothing else resolves. */
const lookup = async (host: string) => {
  if (host === "localhost" || host.endsWith(".test")) return [{ address: "127.0.0.1", family: 4 as const }];
  throw new Error(`${host} does not resolve in this test`);
};

const SMALL = { width: 400, height: 300 };
/** The caps of this file's renderer: small, so tests reach them quickly. */
const CAPS = { maxBytes: 4 * 1024 * 1024, maxConnections: 8 };
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const png: FixtureRoute = { headers: { "content-type": "image/png" }, body: PNG };
const page = (body: string) => `<!doctype html><body style="margin:0;background:#fff">${body}</body>`;
/** Adds `<p id="done">` once `promise` (page code) settled: the render waits for it with `wait_for`. */
const whenSettled = (promise: string) =>
  `<script>Promise.resolve(${promise}).catch(() => undefined).finally(() => document.body.append(Object.assign(document.createElement("p"), { id: "done", textContent: "done" })));</script>`;

/** Streams HTML without end, as fast as the reader takes it, until the connection goes. */
function endless(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.write("<!doctype html><title>endless</title><p>endless</p>");
  const chunk = `<!--${"x".repeat(64 * 1024)}-->`;
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) {
      // Fill the socket's buffer, then wait for it to drain.
    }
  };
  res.on("drain", pump);
  pump();
}

/** A loopback TCP listener on every local address (`::` dual-stack) that counts the connections it accepted. */
async function canaryServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => socket.destroy());
    socket.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n\r\ncanary");
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "::", ipv6Only: false }, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A WebSocket server that accepts every handshake and holds the connections, closing those it
 * holds in batches: when `batch` are held, or when the last of the `expected` handshakes arrived
 * (`arm`). So no connection ends before several are open, whatever the machine's speed; it
 * records how many TCP connections it had open at once.
 */
async function socketServer(batch: number): Promise<{
  port: number;
  arm(expected: number): void;
  peak: () => number;
  total: () => number;
  close(): Promise<void>;
}> {
  let open = 0;
  let peak = 0;
  let total = 0;
  let expected = 0;
  let held: Duplex[] = [];
  const sockets = new Set<Duplex>();
  const server = createHttpServer((_req, res) => res.writeHead(404).end());
  server.on("connection", (socket: Socket) => {
    open++;
    total++;
    peak = Math.max(peak, open);
    socket.once("close", () => open--);
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    socket.on("error", () => socket.destroy());
    socket.once("close", () => sockets.delete(socket));
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    held.push(socket);
    expected--;
    if (held.length >= batch || expected <= 0) {
      for (const s of held) s.destroy();
      held = [];
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arm(count) {
      expected = count;
      peak = open;
    },
    peak: () => peak,
    total: () => total,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  /** The target site (127.0.0.1:A) and a third party (localhost:B). */
  let site: FixtureServer;
  let other: FixtureServer;
  let canary: Awaited<ReturnType<typeof canaryServer>>;
  let sockets: Awaited<ReturnType<typeof socketServer>>;
  let started: TestRenderer;
  const otherUrl = (path: string) => `http://localhost:${other.port}${path}`;
  const render = (path: string, options: Record<string, unknown> = {}) =>
    started.renderer.render({ url: `${site.url}${path}`, ...SMALL, ...options });

  beforeAll(async () => {
    other = await startFixtureServer({
      "/img.png": png,
      "/frame": page(`<img src="/frame.png">`),
      "/frame.png": png,
      "/landing": page("<p>landed</p>"),
    });
    canary = await canaryServer();
    sockets = await socketServer(CAPS.maxConnections);
    const c = canary.port;
    const loopback = [`http://127.0.0.1:${c}/`, `http://localhost:${c}/`, `http://[::1]:${c}/`];
    site = await startFixtureServer({
      "/page": page(`<img src="/own.png"><img src="${otherUrl("/img.png")}"><iframe src="${otherUrl("/frame")}"></iframe>`),
      "/own.png": png,
      "/away": { status: 302, headers: { location: otherUrl("/landing") } },
      "/control": { status: 204 },
      // Every way the page could reach a loopback port around its proxy: fetch, an image, a
      // WebSocket, on each loopback name; plus one allowed fetch (the control).
      "/loopback": page(
        whenSettled(`Promise.allSettled([
          fetch("/control"),
          ...${JSON.stringify(loopback)}.flatMap((u) => [
            fetch(u, { mode: "no-cors" }),
            new Promise((r) => { const i = new Image(); i.onload = i.onerror = r; i.src = u + "pixel.png"; }),
            new Promise((r) => { const w = new WebSocket(u.replace("http", "ws")); w.onopen = w.onerror = w.onclose = r; }),
          ]),
        ])`),
      ),
      "/endless": endless,
      "/endless-fetch": page(
        whenSettled(
          `fetch("/endless").then(async (r) => { const reader = r.body.getReader(); for (;;) if ((await reader.read()).done) break; })`,
        ),
      ),
      // 100 WebSockets to 50 hosts opened at once; the server ends them in batches of the cap.
      "/sockets": page(
        whenSettled(`Promise.all(Array.from({ length: 100 }, (_, i) => new Promise((r) => {
          new WebSocket("ws://s" + (i % 50) + ".test:${sockets.port}/").onclose = r;
        })))`),
      ),
      // An ordinary heavy page: 120 images from 30 hosts.
      "/images": page(
        Array.from(
          { length: 120 },
          (_, i) => `<img width=1 height=1 src="http://h${i % 30}.test:${other.port}/img.png?${i}">`,
        ).join(""),
      ),
    });
    const allow = [site.port, other.port, sockets.port].map((port) => `127.0.0.1:${port}`);
    started = await startRenderer(allow, { lookup, egress: CAPS }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await Promise.all([site?.close(), other?.close(), canary?.close(), sockets?.close()]);
  });
  beforeEach(() => {
    for (const list of [site.requests, other.requests]) list.splice(0);
  });

  describe("headers go to the target's origin only", () => {
    const seen = (server: FixtureServer, path: string, name: string) => server.requestsTo(path).map((r) => r.headers[name]);
    const HEADERS = ["X-Api-Key: k-123", "Authorization=Bearer s3cret"];

    it("the page and its same-origin image get them; another origin's image, iframe and the iframe's image do not", async () => {
      await render("/page", { headers: HEADERS, accept_lang: "de-DE" });
      for (const path of ["/page", "/own.png"]) {
        expect(seen(site, path, "x-api-key"), path).toEqual(["k-123"]);
        expect(seen(site, path, "authorization"), path).toEqual(["Bearer s3cret"]);
      }
      for (const path of ["/img.png", "/frame", "/frame.png"]) {
        expect(seen(other, path, "x-api-key"), path).toEqual([undefined]);
        expect(seen(other, path, "authorization"), path).toEqual([undefined]);
        // The browser's language is no secret: every browser sends one everywhere.
        expect(seen(other, path, "accept-language")[0], path).toMatch(/^de-DE/);
      }
    });

    it("a redirect to another origin drops them", async () => {
      const result = await render("/away", { headers: HEADERS });
      expect(result.size).toBeGreaterThan(0);
      expect(seen(site, "/away", "x-api-key")).toEqual(["k-123"]);
      expect(seen(other, "/landing", "x-api-key")).toEqual([undefined]);
      expect(seen(other, "/landing", "authorization")).toEqual([undefined]);
    });

    once("are refused with html, which has no target origin (Accept-Language alone is fine)", async () => {
      const error = await expectRenderError(
        started.renderer.render({ html: "<p>x</p>", headers: ["X-Api-Key: k-123"] }),
        "InvalidOptions",
      );
      expect(error.details?.option).toBe("headers");
      expect(error.message).toMatch(/headers needs url/);
      const ok = await started.renderer.render({ html: "<p>x</p>", headers: ["Accept-Language: fr"], ...SMALL });
      expect(ok.size).toBeGreaterThan(0);
    });
  });

  it("a page's requests to 127.0.0.1, localhost and [::1] go through the proxy: a port the policy does not allow sees no connection", async () => {
    const result = await render("/loopback", { wait_for: "#done" });
    expect(result.size).toBeGreaterThan(0);
    // Control: the page's allowed fetch did go out.
    expect(site.requestsTo("/control")).toHaveLength(1);
    expect(canary.connections()).toBe(0);
  });

  describe("egress caps per render", () => {
    it("a page that streams without end fails with 400 HTMLProcessError once over the byte cap; the next render works", async () => {
      const error = await expectRenderError(render("/endless"), "HTMLProcessError");
      expect(error.message).toMatch(/more than 4 MiB from the network/);
      expect(site.requestsTo("/endless")).toHaveLength(1);
      expect((await render("/page")).size).toBeGreaterThan(0);
    });

    it("an endless download after load fails the render the same way", async () => {
      const error = await expectRenderError(render("/endless-fetch", { wait_for: "#done" }), "HTMLProcessError");
      expect(error.message).toMatch(/more than 4 MiB/);
      expect(site.requestsTo("/endless")).toHaveLength(1);
    });

    it("100 WebSockets to 50 hosts at once: never more connections open than the cap, and the render completes", async () => {
      const before = sockets.total();
      sockets.arm(100);
      const result = await render("/sockets", { wait_for: "#done" });
      expect(result.size).toBeGreaterThan(0);
      // Every WebSocket got through in the end (they waited for a slot, none was refused).
      expect(sockets.total() - before).toBe(100);
      expect(sockets.peak()).toBeLessThanOrEqual(CAPS.maxConnections);
    });

    once("an ordinary heavy page (120 images from 30 hosts) loads every image under the caps", async () => {
      const result = await render("/images", { wait_until: "requestsfinished" });
      expect(result.size).toBeGreaterThan(0);
      expect(other.requestsTo("/img.png")).toHaveLength(120);
    });
  });
});
