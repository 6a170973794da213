import http from "node:http";
import https from "node:https";
import { abortReason, pinnedLookup, RenderError } from "@renderkit/core";

/** Bytes of a 2xx answer read before the connection is dropped (its content is ignored). */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Bytes of an error answer kept to find the S3 error code in it. */
const MAX_ERROR_BYTES = 4 * 1024;

/** Where one PUT goes: the host name (Host header, SNI) and the address it was pinned to. */
export interface PinnedTarget {
  url: URL;
  host: string;
  port: number;
  address: string;
  family: 4 | 6;
}

/** The failure for a non-2xx answer: the status and S3's error code, never the address (its query is a signature). */
function answered(status: number, text: string): RenderError {
  const code = text.match(/<Code>([A-Za-z0-9.]{1,64})<\/Code>/)?.[1];
  const why = status >= 300 && status < 400 ? " (redirects are not followed)" : code ? ` (${code})` : "";
  return new RenderError("EngineResponseNotOkError", `the presigned upload answered HTTP ${status}${why}`, {
    details: { status },
    retryable: status >= 500 || status === 429,
  });
}

/** The failure for a request that got no answer; the error's code only (its message names the pinned address). */
function unreachable(host: string, error: Error & { code?: string }): RenderError {
  return new RenderError(
    "EngineResponseNotOkError",
    `the presigned upload to ${host} failed: ${error.code ?? "connection error"}`,
    {
      cause: error,
      retryable: true,
    },
  );
}

/**
 * One HTTP PUT of `bytes` with a Content-Length to the pinned address. Never follows
 * redirects; reads a bounded part of the answer; settles once, when the answer ended, the
 * connection failed or `stop` aborted (its reason is the rejection).
 */
export function pinnedPut(target: PinnedTarget, bytes: Uint8Array, contentType: string, stop: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const client = target.url.protocol === "https:" ? https : http;
    const req = client.request({
      method: "PUT",
      hostname: target.host,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      headers: { "Content-Type": contentType, "Content-Length": String(bytes.byteLength) },
      lookup: pinnedLookup(target),
      // A fresh connection per upload: a pooled socket could be one made to another address.
      agent: false,
    });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      stop.removeEventListener("abort", onStop);
      req.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onStop = () => settle(abortReason(stop));
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) return onStop();

    req.on("error", (error: Error) => settle(unreachable(target.host, error)));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const kept: Buffer[] = [];
      let read = 0;
      const done = () => settle(ok ? undefined : answered(status, Buffer.concat(kept).toString("utf8")));
      res.on("data", (chunk: Buffer) => {
        if (!ok && read < MAX_ERROR_BYTES) kept.push(chunk);
        read += chunk.length;
        if (read > (ok ? MAX_ANSWER_BYTES : MAX_ERROR_BYTES)) done();
      });
      res.on("end", done);
      res.on("close", done);
      res.on("error", done);
    });
    req.end(bytes);
  });
}
