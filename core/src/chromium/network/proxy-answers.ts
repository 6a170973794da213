import type { ServerResponse } from "node:http";

/** Header on the proxy's own refusals, so engines can tell them from the site's answers. */
export const DENIED_HEADER = "x-renderkit-denied";
/** Header on the proxy's 502 when the destination could not be reached (not the site's own 502). */
export const UNREACHABLE_HEADER = "x-renderkit-unreachable";

/**
 * The proxy's refusal. The body is generic: a page can frame any address and show the answer in
 * the capture, so it must not learn why (whether or where a name resolves).
 */
export function refuse(res: ServerResponse): void {
  const body = "renderkit refused this address\n";
  res.writeHead(403, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), [DENIED_HEADER]: "1" });
  res.end(body);
}

/** The proxy's answer to a connection past the cap's waiting room, or after the byte cap. */
export function busy(res: ServerResponse): void {
  const body = "renderkit: this render has too many connections open\n";
  res.writeHead(503, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), connection: "close" });
  res.end(body);
}

/** The proxy's 502 to a plain request whose destination (`host`) could not be reached. */
export function unreachableAnswer(res: ServerResponse, host: string, reason: string): void {
  const body = `renderkit could not connect to ${host}: ${reason}\n`;
  res.writeHead(502, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), [UNREACHABLE_HEADER]: "1" });
  res.end(body);
}
