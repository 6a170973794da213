import { randomUUID } from "node:crypto";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";

/** Where a canary listener accepted a connection. */
export interface CanaryHit {
  /** The listener's local address and port (`[::]:40123`, `127.0.0.2:40124`). */
  listener: string;
  /** The first bytes the client sent (the request line of an HTTP request), for the failure message. */
  firstBytes: string;
}

/**
 * An internal service the address policy does not allow: a plain TCP server (so it also sees
 * WebSocket, FTP or gopher attempts and bare preconnects) that answers any bytes with an HTTP page
 * carrying `secret`. `connections` counts every TCP connection accepted on any of its listeners:
 * 0 proves that nothing reached it.
 */
export interface Canary {
  /** Port of the main listener (dual-stack `[::]`: 127.0.0.1, ::1, 0.0.0.0 and the other 127/8 addresses alike). */
  readonly port: number;
  /** Text in every answer: a render that shows it has read the internal service. */
  readonly secret: string;
  readonly connections: number;
  readonly hits: readonly CanaryHit[];
  /**
   * Listens on `address:port` as well (a second loopback address on the port of an allowed
   * server, for DNS rebinding), counted like the main listener.
   */
  listenAlso(address: string, port: number): Promise<void>;
  close(): Promise<void>;
}

async function listen(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, ipv6Only: false }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Starts a canary on a free port of every local address (IPv4 only where IPv6 is unavailable). */
export async function startCanary(): Promise<Canary> {
  const secret = `CANARY-SECRET-${randomUUID()}`;
  const hits: CanaryHit[] = [];
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const body = `<!doctype html><title>${secret}</title><p>${secret}</p>`;
  const answer = `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;

  const open = async (host: string, port: number): Promise<Server> => {
    const server = createServer((socket) => {
      const local = socket.address() as AddressInfo;
      const hit: CanaryHit = { listener: `${host.includes(":") ? `[${host}]` : host}:${local.port}`, firstBytes: "" };
      hits.push(hit);
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
      socket.once("data", (chunk: Buffer) => {
        hit.firstBytes = chunk.subarray(0, 120).toString("latin1");
        socket.end(answer);
      });
    });
    await listen(server, port, host);
    servers.push(server);
    return server;
  };

  const main = await open("::", 0).catch(() => open("0.0.0.0", 0));
  const port = (main.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    port,
    secret,
    hits,
    get connections() {
      return hits.length;
    },
    async listenAlso(address, extraPort) {
      await open(address, extraPort);
    },
    close() {
      closed ??= (async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      })();
      return closed;
    },
  };
}
