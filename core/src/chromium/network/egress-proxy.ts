import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { DEFAULT_EGRESS_LIMITS, listenOnLoopback } from "../../exports/internal.js";
import type { AddressChecker, EgressLimits, RenderError, UpstreamProxy } from "../../index.js";
import { ConnectionSlots, overByteCap, type ReleaseSlot } from "./egress-caps.js";
import { busy, DENIED_HEADER, refuse, unreachableAnswer } from "./proxy-answers.js";
import { authority, requestThrough, tunnelThrough, type UpstreamRoute } from "./upstream-connect.js";

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
  /**
   * The render's error once its page went over a cap (`HTMLProcessError` past `maxBytes`: every
   * connection was cut then and later ones are refused); undefined while it has not.
   */
  limitError(): RenderError | undefined;
  /**
   * Aborted, with `limitError()` as its reason, when the page goes over a cap: whatever waits on
   * the page (a navigation whose document was cut off) can stop at once.
   */
  readonly limitSignal: AbortSignal;
  /** Upstream connections holding a slot of `maxConnections` now, and waiting for one. */
  connections(): { open: number; waiting: number };
  /**
   * The origins the page reached through this session since it opened or last took a policy
   * (`https://host:port` for a tunnel, whatever it carries; `http://host:port` for a plain
   * request): what a reset of a reused page clears the storage of. At most `MAX_ORIGINS` are kept;
   * `overflowed` says more were reached.
   */
  origins(): { origins: string[]; overflowed: boolean };
  /**
   * Replaces the policy, the upstream proxy and the caps (a pre-opened session handed to the
   * render that claims it).
   */
  usePolicy(policy: AddressChecker, upstream?: UpstreamProxy, limits?: EgressLimits): void;
  /** Stops listening and cuts every open connection. Idempotent. */
  close(): Promise<void>;
}

/** Origins a session remembers (`EgressSession.origins`). */
const MAX_ORIGINS = 64;

const HOP_BY_HOP = new Set(["proxy-connection", "proxy-authorization", "keep-alive", "connection", "te", "trailer", "upgrade"]);

/**
 * Opens a loopback HTTP proxy that enforces `policy` (docs/security.md, "Defences") for plain
 * requests and CONNECT tunnels, connecting to the address the policy pinned, never to a fresh DNS
 * answer. With `upstream` (the `proxy` option) every request the policy allowed is forwarded
 * through that proxy instead, whose own address the policy vets too: CONNECT to the pinned address
 * for tunnels, absolute-form requests naming the host for plain http, both with its credentials.
 *
 * `limits` bound what the page takes: past `maxBytes` received, every connection is cut, later
 * ones are refused and `limitError` holds the render's error; at most `maxConnections` upstream
 * connections (tunnels, plain requests in flight) are open at once, later ones wait for a slot
 * (at most `MAX_WAITING_CONNECTIONS`; beyond that they are refused with 503).
 */
export async function openEgressSession(
  initial: AddressChecker,
  upstream?: UpstreamProxy,
  initialLimits: EgressLimits = DEFAULT_EGRESS_LIMITS,
): Promise<EgressSession> {
  let policy = initial;
  let proxy = upstream;
  let limits = initialLimits;
  let received = 0;
  let over: RenderError | undefined;
  const reached = new Set<string>();
  let overflowed = false;
  const reach = (origin: string) => {
    if (reached.size < MAX_ORIGINS) reached.add(origin);
    else if (!reached.has(origin)) overflowed = true;
  };
  const cut = new AbortController();
  const slots = new ConnectionSlots(limits.maxConnections);
  /** Connections to the upstream proxy, this session's own (its credentials are this render's). */
  const upstreamAgent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  /** The upstream proxy's vetted, pinned address (throws when the policy refuses it). */
  const upstreamRoute = async (): Promise<UpstreamRoute | undefined> =>
    proxy && { proxy, address: await policy.resolve(proxy.host, proxy.port), agent: upstreamAgent };
  /** Counts bytes from the network; past the cap, cuts every connection and refuses the rest. */
  const count = (bytes: number) => {
    received += bytes;
    if (over || received <= limits.maxBytes) return;
    over = overByteCap(limits);
    slots.drain();
    for (const socket of sockets) socket.destroy();
    cut.abort(over);
  };
  /** A connection slot, or undefined when the connection is refused (cap reached, or over the byte cap). */
  const slot = async (client: Socket): Promise<ReleaseSlot | undefined> => {
    const release = over ? undefined : await slots.acquire();
    if (release && (client.destroyed || over)) {
      release();
      return undefined;
    }
    return release;
  };
  /** Records why the upstream proxy did not carry a request to `host:port`. */
  const upstreamFailed = (route: UpstreamRoute, host: string, port: number, reason: string) =>
    policy.unreachable.push({
      host,
      port,
      reason: `through the proxy ${authority(route.proxy.host, route.proxy.port)}: ${reason}`,
    });

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
    let route: UpstreamRoute | undefined;
    try {
      ({ address } = await policy.resolve(target.hostname, port));
      route = await upstreamRoute();
    } catch {
      return refuse(res);
    }
    reach(`http://${authority(target.hostname, port)}`);
    const release = await slot(req.socket);
    if (!release) return req.socket.destroyed ? undefined : busy(res);
    res.once("close", release);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers.host = target.host;
    const relay = (answer: IncomingMessage) => {
      count(64 + JSON.stringify(answer.rawHeaders).length);
      answer.on("data", (chunk: Buffer) => count(chunk.length));
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
    };
    const unreachable = (reason: string) => {
      if (res.headersSent) return void res.end();
      if (route) upstreamFailed(route, target.hostname, port, reason);
      else policy.unreachable.push({ host: target.hostname, port, reason });
      unreachableAnswer(res, target.host, reason);
    };
    const upstream = route
      ? requestThrough(route, target, req.method, headers, relay, unreachable)
      : httpRequest(
          { host: address, port, method: req.method, path: `${target.pathname}${target.search}`, headers, setHost: false },
          relay,
        ).on("error", (error) => unreachable(errorCode(error)));
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  };

  const onConnect = async (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on("error", () => client.destroy());
    if (over) return void client.destroy();
    const match = (req.url ?? "").match(/^\[?([^\]]+?)\]?:(\d+)$/);
    if (!match?.[1]) return client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    const port = Number(match[2]);
    let address: string;
    let route: UpstreamRoute | undefined;
    try {
      ({ address } = await policy.resolve(match[1], port));
      route = await upstreamRoute();
    } catch {
      return client.end(`HTTP/1.1 403 Forbidden\r\n${DENIED_HEADER}: 1\r\ncontent-length: 0\r\n\r\n`);
    }
    // A tunnel carries https or a WebSocket; both schemes are cleared, more is harmless.
    reach(`https://${authority(match[1], port)}`);
    reach(`http://${authority(match[1], port)}`);
    const release = await slot(client);
    if (!release)
      return void (client.destroyed ? undefined : client.end("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"));
    // The tunnel holds its slot until the browser's side of it closes (closing either side closes both).
    client.once("close", release);
    if (route) return void tunnelVia(route, client, head, match[1], port, address);
    const upstream = connect(port, address);
    track(upstream);
    upstream.on("data", (chunk: Buffer) => count(chunk.length));
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

  /** A CONNECT through the upstream proxy, to the address the policy pinned (no second DNS answer). */
  const tunnelVia = async (route: UpstreamRoute, client: Socket, head: Buffer, host: string, port: number, address: string) => {
    let tunnel: Awaited<ReturnType<typeof tunnelThrough>>;
    try {
      tunnel = await tunnelThrough(route, address, port);
    } catch (error) {
      if (!client.destroyed) {
        upstreamFailed(route, host, port, (error as Error).message);
        client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      }
      return;
    }
    const { socket: upstream, rest } = tunnel;
    track(upstream);
    if (client.destroyed) return void upstream.destroy();
    count(rest.length);
    upstream.on("data", (chunk: Buffer) => count(chunk.length));
    upstream.on("error", () => upstream.destroy());
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (rest.length) client.write(rest);
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  };

  const server: Server = createServer((req, res) => void onRequest(req, res));
  server.on("connection", (socket: Socket) => (over ? socket.destroy() : track(socket)));
  server.on("connect", (req, socket, head) => void onConnect(req, socket as Socket, head));
  server.on("upgrade", (_req, socket) => (socket as Socket).destroy());
  server.on("clientError", (_err, socket) => socket.destroy());
  const port = await listenOnLoopback(server);

  let closed: Promise<void> | undefined;
  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    bytesReceived: () => received,
    limitError: () => over,
    limitSignal: cut.signal,
    connections: () => slots.counts(),
    origins: () => ({ origins: [...reached], overflowed }),
    usePolicy(next, upstream, nextLimits = DEFAULT_EGRESS_LIMITS) {
      reached.clear();
      overflowed = false;
      policy = next;
      proxy = upstream;
      limits = nextLimits;
      received = 0;
      slots.reset(limits.maxConnections);
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        slots.drain();
        for (const socket of sockets) socket.destroy();
        upstreamAgent.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
