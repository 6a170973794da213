import { RenderError } from "@renderkit/core";
import { HttpProblem } from "./errors.js";

/** A 413 that closes the connection: the rest of the body is never read. */
function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, `The request body is larger than ${limit} bytes`, "PayloadTooLarge", { connection: "close" });
}

/**
 * Reads at most `limit` bytes of the body; a larger body is a 413, before it is all received.
 * The stream is left alone rather than cancelled: cancelling destroys the request under the
 * response (and listhen's shutdown hook then crashes the process on the null socket).
 */
async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
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
    if (size > limit) {
      reader.releaseLock();
      throw tooLarge(limit);
    }
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
