import { Readable, Transform, type TransformCallback } from "node:stream";
import { RenderError, type RenderOptions, snakeName } from "@renderkit/core";
import type { H3Event } from "h3";
import type { AppContext } from "../http/context.js";
import { answerHeaders, renderBytesHeaders, requestId } from "../http/respond.js";
import type { ResponseType } from "../state/job-info.js";
import type { RenderRecord } from "../state/records.js";
import { resultBody } from "./bodies.js";
import { readRender } from "./stored.js";

/** Longest result value copied into an `X-Render-*` header. */
const MAX_HEADER_VALUE = 2_048;

/**
 * The result's figures as headers, for answers whose body is not the JSON result (`binary`,
 * `base64`, `none`): every scalar field as `X-Render-<field>` in kebab case, with a leading
 * `render` dropped (`renderUrl` → `X-Render-Url`, `queueTime` → `X-Render-Queue-Time`,
 * `width` → `X-Render-Width`, `htmlUrl` → `X-Render-Html-Url`). Objects (`metadata`) are left to
 * the JSON answer; text outside printable ASCII is percent-encoded.
 */
export function resultHeaders(record: RenderRecord): Record<string, string> {
  const headers: Record<string, string> = { "x-render-id": record.renderId };
  for (const [name, value] of Object.entries(resultBody(record))) {
    if (name === "renderId" || value === undefined || value === null || typeof value === "object") continue;
    const text = String(value);
    const safe = /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
    if (safe.length > MAX_HEADER_VALUE) continue;
    const bare = name.replace(/^render([A-Z])/, (_, first: string) => first.toLowerCase());
    const field = snakeName(bare).replaceAll("_", "-");
    headers[`x-render-${field}`] = safe;
  }
  return headers;
}

/** Base64 of a byte stream, in order, without holding the whole render in memory. */
function base64Stream(): Transform {
  let rest = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      const bytes = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      const whole = bytes.length - (bytes.length % 3);
      rest = Buffer.from(bytes.subarray(whole));
      done(null, whole ? bytes.subarray(0, whole).toString("base64") : undefined);
    },
    flush(done: TransformCallback) {
      done(null, rest.length ? rest.toString("base64") : undefined);
    },
  });
}

/** Length of the base64 text of `size` bytes (padded). */
export const base64Length = (size: number) => 4 * Math.ceil(size / 3);

/**
 * The answer to a finished render in the `response_type` asked for: the JSON result, the bytes,
 * their base64 text, or nothing but headers. HEAD gets the same status and headers (including
 * `content-length`) without a body. `extra` headers are added (`content-disposition`,
 * `cache-control`). Bytes and their base64 text carry `renderBytesHeaders` (`nosniff`, and the
 * sandboxing CSP unless the type is inert), for links and the sync API alike.
 */
export async function answerInType(
  event: H3Event,
  ctx: AppContext,
  record: RenderRecord,
  type: ResponseType,
  extra: Record<string, string> = {},
): Promise<Response> {
  const head = event.req.method === "HEAD";
  const base = { ...answerHeaders(event), "x-request-id": requestId(event), ...extra };
  if (type === "json" || type === "none") {
    const text = type === "json" ? JSON.stringify(resultBody(record)) : "";
    const headers: Record<string, string> = {
      ...base,
      ...(type === "json" ? { "x-render-id": record.renderId } : resultHeaders(record)),
      "content-type": type === "json" ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
      // The result repeats the caller's text (metadata, addresses): read as JSON only.
      "x-content-type-options": "nosniff",
      "content-length": String(Buffer.byteLength(text)),
    };
    return new Response(head || text === "" ? null : text, { status: 200, headers });
  }
  const stored = await readRender(ctx, record);
  const binary = type === "binary";
  const contentType = binary ? stored.contentType : "text/plain; charset=utf-8";
  const headers: Record<string, string> = {
    ...base,
    ...resultHeaders(record),
    ...renderBytesHeaders(contentType),
    "content-type": contentType,
    "content-length": String(binary ? stored.size : base64Length(stored.size)),
  };
  if (head) {
    stored.body.destroy();
    return new Response(null, { status: 200, headers });
  }
  const body = binary ? stored.body : stored.body.pipe(base64Stream());
  if (!binary) stored.body.on("error", (error) => body.destroy(error));
  return new Response(Readable.toWeb(body) as ReadableStream, { status: 200, headers });
}

/**
 * Refusals that depend on the answer asked for, checked before the render is queued: bytes
 * cannot be answered for a render uploaded to the client's own presigned address.
 */
export function refuseForType(type: ResponseType, options: RenderOptions): void {
  if ((type === "binary" || type === "base64") && options.s3PresignedUrl !== undefined) {
    throw invalidType(
      `${type} cannot be used with ${snakeName("s3PresignedUrl")}: the render is uploaded to your address; use json or none`,
    );
  }
}

/** 400 `InvalidOptions` naming `response_type`. */
export function invalidType(why: string): RenderError {
  return new RenderError("InvalidOptions", `Option response_type ${why}`, { details: { option: "response_type" } });
}
