import { Readable } from "node:stream";
import { type AddressPolicy, abortReason, hostAndPort, RenderError, raceSignal } from "@renderkit/core";
import { type PinnedTarget, pinnedPut } from "./pinned-put.js";

/** Default budget of one presigned upload: resolution, reading the body, sending it, the answer. */
export const PRESIGNED_UPLOAD_TIMEOUT_MS = 60_000;

/** How `uploadToPresignedUrl` may reach the address. */
export interface PresignedUploadOptions {
  /** Vets and pins the host (docs/security.md#decisions); throws `InvalidURLError` for non-public addresses. */
  policy: AddressPolicy;
  /** Whole budget in ms. Default 60 000. */
  timeoutMs?: number;
  /** Cancels the upload; its reason is the rejection. */
  signal?: AbortSignal;
}

const refused = (why: string) => new RenderError("InvalidURLError", `The presigned upload address ${why}`);

function parseAddress(text: string): { url: URL; host: string; port: number } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refused("is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused("must be http or https");
  if (url.username || url.password) throw refused("must not carry credentials");
  return { url, ...hostAndPort(url) };
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * Uploads a render with HTTP PUT to an address the caller signed (`s3_presigned_url`).
 * Only http(s); the host is resolved once through `policy` and the connection goes to that
 * pinned address (Host and SNI stay the name); redirects are not followed; one budget bounds
 * it all. A Readable is read into memory first, because S3 needs a Content-Length on a
 * presigned PUT (renders are bounded in size). A non-2xx answer rejects with
 * `EngineResponseNotOkError` naming the status, never the address (its query is a signature).
 * On failure a Readable body is destroyed.
 */
export async function uploadToPresignedUrl(
  url: string,
  body: Uint8Array | Readable,
  meta: { contentType: string },
  options: PresignedUploadOptions,
): Promise<{ size: number }> {
  const readable = body instanceof Readable ? body : undefined;
  // A body failing before it is read must not crash the process; reading it reports the error.
  readable?.on("error", () => undefined);
  try {
    // Never an upload without the address rules (docs/security.md#decisions), even from a careless caller.
    if (typeof options?.policy?.resolve !== "function") throw new TypeError("uploadToPresignedUrl: options.policy is required");
    const { url: address, host, port } = parseAddress(url);
    if (typeof meta?.contentType !== "string" || meta.contentType === "") {
      throw new TypeError("uploadToPresignedUrl: meta.contentType is required");
    }
    const timeoutMs = options.timeoutMs ?? PRESIGNED_UPLOAD_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 3_600_000) {
      throw new RangeError(`uploadToPresignedUrl: timeoutMs must be an integer from 1 to 3600000, got ${String(timeoutMs)}`);
    }
    if (!readable && !(body instanceof Uint8Array))
      throw new TypeError("uploadToPresignedUrl: body must be a Uint8Array or a Readable");
    const stop = new AbortController();
    const timer = setTimeout(() => {
      stop.abort(
        new RenderError("TimedOutError", `the presigned upload did not finish within ${timeoutMs} ms`, { retryable: true }),
      );
    }, timeoutMs);
    const { signal } = options;
    const onAbort = () => stop.abort(abortReason(signal as AbortSignal));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const pinned = await raceSignal(options.policy.resolve(host, port), stop.signal);
      const bytes = readable ? await raceSignal(readAll(readable), stop.signal) : (body as Uint8Array);
      const target: PinnedTarget = { url: address, host, port, address: pinned.address, family: pinned.family };
      await pinnedPut(target, bytes, meta.contentType, stop.signal);
      return { size: bytes.byteLength };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  } catch (error) {
    readable?.destroy();
    throw error;
  }
}
