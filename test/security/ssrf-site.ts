import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { attackPage, SERVICE_WORKER, WORKER } from "./attack-pages.js";

/** One request the attacker's site received. */
export interface SiteRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The Host header: which name the browser thought it talked to. */
  host: string | undefined;
}

/**
 * The attacker's site, the one server the renderer may reach (`127.0.0.1:<port>` is allowlisted):
 * it serves the attack pages and records every request, so a control run can prove that a
 * technique does reach an allowed server (and would reach the canary if the policy let it).
 */
export interface AttackSite {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: SiteRequest[];
  requestsTo(path: string): SiteRequest[];
  close(): Promise<void>;
}

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** An answer of the site. */
interface Answer {
  status: number;
  type: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

/** `/redirect?status=302&to=<address>`, `/chain?n=3&to=`, `/refresh?to=` and the attack pages. */
function route(url: URL): Answer {
  const q = url.searchParams;
  const to = q.get("to") ?? "";
  switch (url.pathname) {
    case "/attack":
      return { status: 200, type: "text/html; charset=utf-8", body: attackPage(q.get("kind") ?? "", to) };
    case "/sw.js":
      return { status: 200, type: "text/javascript", body: SERVICE_WORKER(to) };
    case "/worker.js":
      return { status: 200, type: "text/javascript", body: WORKER(to) };
    case "/redirect":
      return { status: Number(q.get("status") ?? 302), type: "text/plain", body: "", headers: { location: to } };
    case "/chain": {
      const n = Number(q.get("n") ?? 1);
      const next = n > 1 ? `/chain?n=${n - 1}&to=${encodeURIComponent(to)}` : to;
      return { status: 302, type: "text/plain", body: "", headers: { location: next } };
    }
    case "/refresh":
      return { status: 200, type: "text/html", body: "<p>refreshing</p>", headers: { refresh: `0;url=${to}` } };
    default:
      // What a technique fetched from the allowed site (the control): an image, valid anywhere one is expected.
      if (url.pathname.startsWith("/hit/")) return { status: 200, type: "image/png", body: PNG };
      return { status: 404, type: "text/plain", body: "not found" };
  }
}

/** Starts the attacker's site on a free port of 127.0.0.1. */
export async function startAttackSite(): Promise<AttackSite> {
  const requests: SiteRequest[] = [];
  const sockets = new Set<Socket>();
  const record = (req: IncomingMessage): URL => {
    const url = new URL(req.url ?? "/", "http://site.invalid");
    requests.push({ method: req.method ?? "GET", path: url.pathname, host: req.headers.host });
    return url;
  };
  const server = createServer((req, res) => {
    const url = record(req);
    req.resume();
    req.on("end", () => {
      const answer = route(url);
      res
        .writeHead(answer.status, { "content-type": answer.type, "cache-control": "no-store", ...answer.headers })
        .end(answer.body);
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // WebSocket handshakes are recorded, then cut: the control only needs to see that one arrived.
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    record(req);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
