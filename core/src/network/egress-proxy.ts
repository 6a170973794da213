import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { listenOnLoopback } from "../util/listen.js";
import type { AddressPolicy } from "./address-policy.js";

/** Header on the proxy's own refusals, so engines can tell them from the site's answers. */
export const DENIED_HEADER = "x-renderkit-denied";
/** Header on the proxy's 502 when the destination could not be reached (not the site's own 502). */
export const UNREACHABLE_HEADER = "x-renderkit-unreachable";

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : "connection failed";
}

/** A per-render forward proxy: every connection the browser makes for one render goes through it. */
export interface EgressSession {
  /** `http://127.0.0.1:<port>`, for the browser context's proxy setting. */
  readonly proxyUrl: string;
  /** Bytes received from the network for this render (headers and bodies). */
  bytesReceived(): number;
  /** Replaces the policy (a pre-opened session handed to the render that claims it). */
  usePolicy(policy: AddressPolicy): void;
  /** Stops listening and cuts every open connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * The proxy's refusal. The body is generic: a page can frame any address and show the answer in
 * the capture, so it must not learn why (whether or where a name resolves).
 */
function refuse(res: ServerResponse): void {
  const body = "renderkit refused this address\n";
  res.writeHead(403, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), [DENIED_HEADER]: "1" });
  res.end(body);
}

const HOP_BY_HOP = new Set(["proxy-connection", "proxy-authorization", "keep-alive", "connection", "te", "trailer", "upgrade"]);

/**
 * Opens a loopback HTTP proxy that enforces `policy` (DESIGN §5) for plain requests and CONNECT
 * tunnels, connecting to the address the policy pinned, never to a fresh DNS answer.
 */
export async function openEgressSession(initial: AddressPolicy): Promise<EgressSession> {
  let policy = initial;
  let received = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? "");
      if (target.protocol !== "http:") throw new Error("scheme");
    } catch {
      return refuse(res);
    }
    const port = Number(target.port || 80);
    let address: string;
    try {
      ({ address } = await policy.resolve(target.hostname, port));
    } catch {
      return refuse(res);
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers.host = target.host;
    const upstream = httpRequest(
      { host: address, port, method: req.method, path: `${target.pathname}${target.search}`, headers, setHost: false },
      (answer) => {
        received += 64 + JSON.stringify(answer.rawHeaders).length;
        answer.on("data", (chunk: Buffer) => {
          received += chunk.length;
        });
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      if (res.headersSent) return void res.end();
      const reason = errorCode(error);
      policy.unreachable.push({ host: target.hostname, port, reason });
      const body = `renderkit could not connect to ${target.host}: ${reason}\n`;
      res.writeHead(502, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), [UNREACHABLE_HEADER]: "1" });
      res.end(body);
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  };

  const onConnect = async (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on("error", () => client.destroy());
    const match = (req.url ?? "").match(/^\[?([^\]]+?)\]?:(\d+)$/);
    if (!match?.[1]) return client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    const port = Number(match[2]);
    let address: string;
    try {
      ({ address } = await policy.resolve(match[1], port));
    } catch {
      return client.end(`HTTP/1.1 403 Forbidden\r\n${DENIED_HEADER}: 1\r\ncontent-length: 0\r\n\r\n`);
    }
    const upstream = connect(port, address);
    track(upstream);
    upstream.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", (error) => {
      if (!connected && !client.destroyed) {
        policy.unreachable.push({ host: match[1] as string, port, reason: errorCode(error) });
      }
      if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    });
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  };

  const server: Server = createServer((req, res) => void onRequest(req, res));
  server.on("connection", track);
  server.on("connect", (req, socket, head) => void onConnect(req, socket as Socket, head));
  server.on("upgrade", (_req, socket) => (socket as Socket).destroy());
  server.on("clientError", (_err, socket) => socket.destroy());
  const port = await listenOnLoopback(server);

  let closed: Promise<void> | undefined;
  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    bytesReceived: () => received,
    usePolicy(next) {
      policy = next;
      received = 0;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
