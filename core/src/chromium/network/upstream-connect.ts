import {
  type Agent,
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from "node:http";
import { connect, isIP, type Socket } from "node:net";
import type { ResolvedAddress, UpstreamProxy } from "../../index.js";

/** How long the upstream proxy has to connect and answer a CONNECT, in ms. */
const HANDSHAKE_TIMEOUT_MS = 30_000;
/** Largest CONNECT answer head accepted from the upstream proxy. */
const MAX_HEAD = 16 * 1024;

/** `host:port` of the proxy, IPv6 in brackets (for messages and CONNECT lines). */
export function authority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** The `Proxy-Authorization` value for the proxy's credentials, if it has any. */
export function proxyAuthorization(proxy: UpstreamProxy): string | undefined {
  if (proxy.username === undefined) return undefined;
  return `Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ""}`, "utf8").toString("base64")}`;
}

/** Why the upstream proxy did not carry a request (for the render's error). */
export class UpstreamFailure extends Error {}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : "connection failed";
}

/** The reason for a refusal answer of the proxy itself (407: credentials). */
function refusalReason(proxy: UpstreamProxy, status: number, text: string): string {
  if (status === 407) {
    return proxy.username === undefined ? "the proxy requires credentials (407)" : "the proxy refused the credentials (407)";
  }
  return `the proxy answered ${status}${text ? ` ${text}` : ""}`;
}

/** The proxy's address as it was vetted and pinned by the address policy, plus its credentials. */
export interface UpstreamRoute {
  proxy: UpstreamProxy;
  /** The proxy's pinned address. */
  address: ResolvedAddress;
  /** Keeps plain-http connections to the proxy for one render only (never shared between renders). */
  agent?: Agent;
}

/**
 * Opens a TCP connection to the upstream proxy and asks it (CONNECT) for a tunnel to
 * `host:port` (an address the policy vetted). Resolves with the socket once the proxy answered
 * 2xx, and the bytes it already sent past its answer; rejects with `UpstreamFailure`.
 */
export function tunnelThrough(route: UpstreamRoute, host: string, port: number): Promise<{ socket: Socket; rest: Buffer }> {
  const { proxy, address } = route;
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.port, address.address);
    let head = Buffer.alloc(0);
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(new UpstreamFailure(reason));
    };
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => fail("the proxy did not answer in time"));
    socket.on("error", (error) => fail(`the proxy could not be reached (${errorCode(error)})`));
    socket.once("close", () => fail("the proxy closed the connection"));
    socket.once("connect", () => {
      const target = authority(host, port);
      const auth = proxyAuthorization(proxy);
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`);
    });
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > MAX_HEAD) fail("the proxy sent an oversized answer");
        return;
      }
      socket.off("data", onData);
      const status = head
        .subarray(0, end)
        .toString("latin1")
        .match(/^HTTP\/1\.[01] (\d{3}) ?([^\r\n]*)/);
      const code = Number(status?.[1] ?? 0);
      if (code < 200 || code > 299)
        return fail(status ? refusalReason(proxy, code, status[2] ?? "") : "the proxy sent no HTTP answer");
      settled = true;
      socket.setTimeout(0);
      socket.removeAllListeners("close");
      socket.removeAllListeners("error");
      resolve({ socket, rest: head.subarray(end + 4) });
    };
    socket.on("data", onData);
  });
}

/**
 * Sends a plain-http request through the upstream proxy in absolute form (`GET http://host/path`)
 * with its credentials. `onAnswer` gets the site's answer as the proxy relays it; `onFailure` a
 * reason when the proxy could not be reached or refused the request itself (407).
 */
export function requestThrough(
  route: UpstreamRoute,
  target: URL,
  method: string | undefined,
  headers: OutgoingHttpHeaders,
  onAnswer: (answer: IncomingMessage) => void,
  onFailure: (reason: string) => void,
): ClientRequest {
  const { proxy, address } = route;
  const auth = proxyAuthorization(proxy);
  const request = httpRequest(
    {
      agent: route.agent ?? false,
      host: address.address,
      family: address.family,
      port: proxy.port,
      method,
      path: target.href,
      headers: { ...headers, ...(auth ? { "proxy-authorization": auth } : {}) },
      setHost: false,
    },
    (answer) => {
      if (answer.statusCode === 407) {
        answer.resume();
        return onFailure(refusalReason(proxy, 407, ""));
      }
      onAnswer(answer);
    },
  );
  request.on("error", (error) => onFailure(`the proxy could not be reached (${errorCode(error)})`));
  return request;
}

/** Resolves when a TCP connection to the proxy opens; rejects with the reason it did not. */
export function probeProxy(route: UpstreamRoute, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(route.proxy.port, route.address.address);
    const done = (error?: string) => {
      socket.destroy();
      if (error) reject(new UpstreamFailure(error));
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => done("the connection timed out"));
    socket.once("connect", () => done());
    socket.once("error", (error) => done(errorCode(error)));
  });
}
