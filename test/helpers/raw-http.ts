import { connect } from "node:net";

/** An HTTP answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/** Decodes a `Transfer-Encoding: chunked` body (extensions and trailers ignored). */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) break;
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1").split(";")[0] ?? "", 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses the last final (non-1xx) answer of `data`. */
export function parseAnswer(data: Buffer): RawAnswer {
  let rest = data;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) throw new Error(`no complete HTTP answer in ${JSON.stringify(data.subarray(0, 200).toString("latin1"))}`);
    const head = rest.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number(head[0]?.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    const length = headers["content-length"];
    const body = /chunked/i.test(headers["transfer-encoding"] ?? "")
      ? dechunk(rest)
      : length !== undefined
        ? rest.subarray(0, Number(length))
        : rest;
    return { status, headers, body };
  }
}

/**
 * Sends `request` as raw bytes to `127.0.0.1:port` and reads until the server closes the
 * connection (send `Connection: close`, or a request the server refuses). `guardMs` only turns a
 * server that never answers into a clear failure instead of a stuck test; it bounds nothing else.
 */
export function rawExchange(port: number, request: Buffer, guardMs = 60_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${guardMs} ms to ${JSON.stringify(request.subarray(0, 120).toString("latin1"))}`));
    }, guardMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // The server may close as soon as it refused the headers, before the body is written: not an error.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") {
        clearTimeout(guard);
        reject(error);
      }
    });
    socket.on("close", () => {
      clearTimeout(guard);
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(request);
  });
}
