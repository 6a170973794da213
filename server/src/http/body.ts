import { RenderError } from "@renderkit/core";
import { HttpProblem } from "./errors.js";

/**
 * A body over the limit is still read and dropped up to this size before the 413 goes out:
 * a client still uploading then gets the answer, where closing on it would reset the connection
 * and lose the answer (nginx's "lingering close"). Anything larger, or slower, is cut off.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** How long draining may take in all, and how long it waits for the next chunk. */
const DRAIN_MS = 10_000;
const DRAIN_IDLE_MS = 2_000;

/** A 413; `close` when the rest of the body was not read (that connection cannot be reused). */
function tooLarge(limit: number, close: boolean): HttpProblem {
  return new HttpProblem(
    413,
    `The request body is larger than ${limit} bytes`,
    "PayloadTooLarge",
    close ? { connection: "close" } : undefined,
  );
}

/**
 * Reads and drops what is left of a body, up to `DRAIN_MAX_BYTES` in all, within `DRAIN_MS` and
 * with no pause over `DRAIN_IDLE_MS`: true when it reached the end. A read still pending when it
 * gives up is left to the closing connection.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, size: number): Promise<boolean> {
  const deadline = Date.now() + DRAIN_MS;
  while (size <= DRAIN_MAX_BYTES) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), Math.min(DRAIN_IDLE_MS, deadline - Date.now()));
    });
    const chunk = await Promise.race([reader.read(), late]).catch(() => "late" as const);
    clearTimeout(timer);
    if (chunk === "late") return false;
    if (chunk.done) return true;
    size += chunk.value.byteLength;
  }
  return false;
}

/**
 * Reads at most `limit` bytes of the body; a larger body is a 413 (see `drain`). The stream is
 * never cancelled: cancelling destroys the request under the response (and listhen's shutdown
 * hook then crashes the process on the null socket).
 */
async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    const drained = declared <= DRAIN_MAX_BYTES && request.body ? await drain(request.body.getReader(), 0) : false;
    throw tooLarge(limit, !drained);
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The client went away mid-upload: nobody reads the answer, and it is no server fault.
      throw new HttpProblem(400, "The request body ended early (the client disconnected)", "BadRequest");
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > limit) throw tooLarge(limit, !(await drain(reader, size)));
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Form and query strings: repeated keys become arrays (`click=a&click=b`). */
export function paramsToOptions(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    const previous = out[name];
    if (previous === undefined) out[name] = key.endsWith("[]") ? [value] : value;
    else out[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return out;
}

/**
 * Render options from a JSON or form-encoded body (spec: both accepted). A body that is neither
 * valid JSON nor a form, or not an object, is a 400 `InvalidOptions`.
 */
export async function readOptions(request: Request, limit: number): Promise<Record<string, unknown>> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const text = await readLimited(request, limit);
  if (type === "application/x-www-form-urlencoded") return paramsToOptions(new URLSearchParams(text));
  if (type === "" || type === "application/json" || type.endsWith("+json") || type === "text/plain") {
    if (text.trim() === "") throw new RenderError("NoUrlSupplied", "The request has no body; send the render options as JSON");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new RenderError("InvalidOptions", "The request body is not valid JSON");
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new RenderError("InvalidOptions", "The request body must be a JSON object of render options");
    }
    return value as Record<string, unknown>;
  }
  throw new RenderError(
    "InvalidOptions",
    `Unsupported content type ${type}: send application/json or application/x-www-form-urlencoded`,
  );
}
