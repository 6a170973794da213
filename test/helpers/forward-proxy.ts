import { createServer, request as httpRequest } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/** One request a forward proxy received: `GET http://host/path` or `CONNECT host:port`. */
export interface ProxiedRequest {
  method: string;
  /** The absolute address (plain http) or `host:port` (CONNECT). */
  target: string;
  /** The `Proxy-Authorization` header it came with. */
  auth: string | undefined;
}

/** A small real HTTP forward proxy on loopback that records what it was asked to carry. */
export interface ForwardProxy {
  readonly port: number;
  readonly requests: ProxiedRequest[];
  /** TCP connections accepted so far (0: nothing ever reached it). */
  readonly connections: number;
  close(): Promise<void>;
}

/** Where the proxy connects for a host name: names ending in `.test` and `localhost` are this machine. */
const resolveHere = (host: string) => (host === "localhost" || host.endsWith(".test") ? "127.0.0.1" : host);

/**
 * Starts a forward proxy: absolute-form requests are relayed, CONNECT opens a tunnel. With
 * `credentials` (`user:pass`) anything without the matching `Proxy-Authorization: Basic` gets 407.
 */
export async function startForwardProxy(credentials?: string): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const expected = credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString("base64")}`;
  const allowed = (auth: string | undefined) => expected === undefined || auth === expected;

  const server = createServer((req, res) => {
    const auth = req.headers["proxy-authorization"];
    requests.push({ method: req.method ?? "GET", target: req.url ?? "", auth });
    if (!allowed(auth)) return void res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
    const url = new URL(req.url ?? "");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const out = httpRequest(
      {
        host: resolveHere(url.hostname),
        port: url.port || 80,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.headersSent || res.writeHead(502).end());
    req.pipe(out);
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const auth = req.headers["proxy-authorization"];
    requests.push({ method: "CONNECT", target: req.url ?? "", auth });
    client.on("error", () => client.destroy());
    if (!allowed(auth)) return void client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
    const [, host = "", port = "0"] = (req.url ?? "").match(/^\[?([^\]]+?)\]?:(\d+)$/) ?? [];
    const upstream = connect(Number(port), resolveHere(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.once("close", () => upstream.destroy());
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
