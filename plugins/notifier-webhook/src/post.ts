import http from "node:http";
import https from "node:https";
import { type AddressPolicy, hostAndPort, isRenderError, pinnedLookup, raceSignal } from "@renderkit/core";

/** Bytes of a receiver's answer read before the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** What one POST achieved. `permanent` failures are not retried. */
export interface PostOutcome {
  delivered: boolean;
  status?: number;
  /** Human-readable, safe to log and store: never the body, the secret or response content. */
  reason: string;
  permanent: boolean;
  /** The attempt was cut short by `close()`; its result is unknown. */
  interrupted?: boolean;
}

export interface PostRequest {
  url: URL;
  body: string;
  headers: Record<string, string>;
  /** Whole budget: address resolution, connection and the answer's status line. */
  timeoutMs: number;
  policy: AddressPolicy;
  /** Aborted by `close()`. */
  signal: AbortSignal;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Failure of address resolution: refused addresses and unknown names are permanent. */
function resolveFailure(error: unknown): PostOutcome {
  if (isRenderError(error)) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    // A resolver that is down (EAI_AGAIN) may answer later; NXDOMAIN and refusals will not change.
    const permanent = error.code === "InvalidURLError" || cause?.code !== "EAI_AGAIN";
    return { delivered: false, reason: error.message, permanent };
  }
  return { delivered: false, reason: `address resolution failed: ${String(error)}`, permanent: false };
}

/**
 * One signed POST. Resolves the host once through `policy`, refuses non-public addresses,
 * connects to the pinned address (Host header and SNI stay the host name), never follows
 * redirects and reads at most 64 KiB of the answer. One budget, `timeoutMs`, covers it all.
 * Never rejects.
 */
export async function postWebhook(request: PostRequest): Promise<PostOutcome> {
  const { url, signal, timeoutMs } = request;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { delivered: false, reason: `unsupported scheme ${url.protocol} (only http and https)`, permanent: true };
  }
  const local = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    local.abort();
  }, timeoutMs);
  const onClose = () => local.abort();
  signal.addEventListener("abort", onClose, { once: true });
  if (signal.aborted) local.abort();
  const cut = (): PostOutcome =>
    timedOut
      ? { delivered: false, reason: `no answer within ${timeoutMs} ms`, permanent: false }
      : { delivered: false, reason: "interrupted by close()", permanent: false, interrupted: true };
  try {
    return await attempt(request, local.signal, cut);
  } catch (error) {
    // Only a request Node refuses to build lands here (bad header value...): retrying cannot help.
    return { delivered: false, reason: `the request could not be built: ${String(error)}`, permanent: true };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onClose);
  }
}

async function attempt(request: PostRequest, stop: AbortSignal, cut: () => PostOutcome): Promise<PostOutcome> {
  const { url, body, headers, policy } = request;
  const { host, port } = hostAndPort(url);
  let pinned: { address: string; family: 4 | 6 };
  try {
    pinned = await raceSignal(policy.resolve(host, port), stop);
  } catch (error) {
    return stop.aborted ? cut() : resolveFailure(error);
  }

  return new Promise<PostOutcome>((resolve) => {
    let outcome: PostOutcome | undefined;
    const client = url.protocol === "https:" ? https : http;
    const req = client.request({
      method: "POST",
      hostname: host,
      port,
      path: `${url.pathname}${url.search}`,
      auth: url.username || url.password ? `${decode(url.username)}:${decode(url.password)}` : undefined,
      headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(pinned),
      agent: false,
    });
    const finish = (result: PostOutcome) => {
      stop.removeEventListener("abort", onStop);
      req.destroy();
      resolve(result);
    };
    // Before the status line: a cut attempt. After it: the status already decided, stop draining.
    const onStop = () => finish(outcome ?? cut());
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) return onStop();

    req.on("error", (error: Error) => finish(outcome ?? { delivered: false, reason: error.message, permanent: false }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      outcome =
        status >= 200 && status < 300
          ? { delivered: true, status, reason: `HTTP ${status}`, permanent: false }
          : status >= 300 && status < 400
            ? { delivered: false, status, reason: `HTTP ${status} (redirects are not followed)`, permanent: false }
            : { delivered: false, status, reason: `HTTP ${status}`, permanent: false };
      const decided = outcome;
      // The answer is drained, bounded, only so the connection ends cleanly; its content is ignored.
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) finish(decided);
      });
      res.on("error", () => finish(decided));
      res.on("end", () => finish(decided));
      res.on("close", () => finish(decided));
    });
    req.end(body);
  });
}
