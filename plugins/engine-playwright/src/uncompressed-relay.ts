import { connect, createServer, type Socket } from "node:net";

/** The most a WebSocket handshake request may take before the relay gives up on it. */
const MAX_HANDSHAKE_BYTES = 16 * 1024;

/** A loopback address that reaches Chromium's DevTools endpoint without WebSocket compression. */
export interface UncompressedRelay {
  /** The `ws://127.0.0.1:<port>/devtools/browser/<id>` address to connect to. */
  endpoint: string;
  /** Stops listening and ends every relayed connection. */
  close(): void;
}

/** The handshake without its `Sec-WebSocket-Extensions` lines: no extension is offered. */
function withoutExtensions(head: string): string {
  return head
    .split("\r\n")
    .filter((line) => !/^sec-websocket-extensions\s*:/i.test(line))
    .join("\r\n");
}

/** Relays one client connection to `port` once its handshake arrived, the compression offer dropped. */
function relay(client: Socket, host: string, port: number, open: Set<Socket>): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > MAX_HANDSHAKE_BYTES) client.destroy();
      return;
    }
    client.off("data", onData);
    const upstream = connect(port, host);
    // Small frames go at once both ways, as on a direct connection (no Nagle delay on a hop).
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    open.add(upstream);
    upstream.once("close", () => {
      open.delete(upstream);
      client.destroy();
    });
    client.once("close", () => upstream.destroy());
    upstream.on("error", () => upstream.destroy());
    const request = Buffer.from(`${withoutExtensions(head.subarray(0, end).toString("latin1"))}\r\n\r\n`, "latin1");
    upstream.write(Buffer.concat([request, head.subarray(end + 4)]));
    upstream.pipe(client);
    client.pipe(upstream);
  };
  client.on("data", onData);
}

/**
 * Playwright's WebSocket client offers per-message compression, and Chromium's DevTools server
 * accepts it: every message over 10 KB, a screenshot's base64 above all, is then deflated by the
 * browser and inflated by Node (measured: ~6 ms of Node and ~10 ms of browser CPU a render).
 * Puppeteer turns the offer off; Playwright has no option for it. This relay, on a free loopback
 * port, passes the connection to `wsEndpoint` through with the offer removed from the handshake,
 * so Chromium answers without compression and both sides send plain frames.
 */
export async function uncompressedRelay(wsEndpoint: string): Promise<UncompressedRelay> {
  const target = new URL(wsEndpoint);
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    relay(client, target.hostname, Number(target.port), open);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    endpoint: `ws://127.0.0.1:${port}${target.pathname}`,
    close() {
      server.close();
      for (const socket of open) socket.destroy();
    },
  };
}
