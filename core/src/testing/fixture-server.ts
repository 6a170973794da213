import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "../util/listen.js";

/** One request the fixture server received. */
export interface FixtureRequest {
  method: string;
  /** Path and query as sent (`/echo?x=1`). */
  path: string;
  headers: IncomingHttpHeaders;
}

/**
 * What a route answers: an HTML string (200, text/html), a full answer, or a handler that
 * writes the response itself (it may also never answer, to simulate a hanging page).
 */
export type FixtureRoute =
  | string
  | { status?: number; headers?: Record<string, string>; body?: string | Uint8Array }
  | ((req: IncomingMessage, res: ServerResponse, url: URL) => void);

/** A loopback HTTP server for tests; it records every request it gets. */
export interface FixtureServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request received, oldest first. */
  readonly requests: FixtureRequest[];
  /** Requests whose path (without query) is `path`. */
  requestsTo(path: string): FixtureRequest[];
  /** Stops listening and cuts open connections (hanging routes included). */
  close(): Promise<void>;
}

/**
 * Starts a fixture server on 127.0.0.1 and a free port. `routes` maps a path (without query)
 * to its answer; a function receives every request not matched (`"*"`). Unknown paths answer 404.
 */
export async function startFixtureServer(routes: Readonly<Record<string, FixtureRoute>> = {}): Promise<FixtureServer> {
  const requests: FixtureRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fixture.invalid");
    requests.push({ method: req.method ?? "GET", path: `${url.pathname}${url.search}`, headers: req.headers });
    const route = routes[url.pathname] ?? routes["*"];
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    } else if (typeof route === "function") {
      route(req, res, url);
    } else if (typeof route === "string") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
    } else {
      res.writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8", ...route.headers }).end(route.body ?? "");
    }
  });
  const port = await listenOnLoopback(server);
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path.split("?")[0] === path),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
