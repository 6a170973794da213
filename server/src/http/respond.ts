import { basename } from "node:path";
import { isRenderError } from "@renderkit/core";
import contentDisposition from "content-disposition";
import type { H3Event } from "h3";
import type { Project } from "../config/types.js";
import { authenticate } from "./auth.js";
import type { AppContext } from "./context.js";

/** JSON answer with the request id and any extra headers; `nosniff`, as it may repeat the caller's text (an id). */
export function json(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      "x-request-id": requestId(event),
      ...headers,
    },
  });
}

/** The id of this HTTP request (set by the app's first middleware). */
export function requestId(event: H3Event): string {
  return String(event.context.requestId ?? "");
}

/** Headers collected for the answer, including error answers (rate-limit headers). */
export function answerHeaders(event: H3Event): Record<string, string> {
  event.context.answerHeaders ??= {};
  return event.context.answerHeaders as Record<string, string>;
}

/** A HEAD handler from a GET one: the same status and headers, no body. */
export function headOf(handler: (event: H3Event) => Response | Promise<Response>) {
  return async (event: H3Event): Promise<Response> => {
    const answer = await handler(event);
    await answer.body?.cancel().catch(() => undefined);
    return new Response(null, { status: answer.status, headers: answer.headers });
  };
}

/** Longest `X-Ignored-Options` value, its tail included. */
const MAX_IGNORED_HEADER = 1_000;

/**
 * The `X-Ignored-Options` value naming `ignored`, or undefined for none. Names are the client's
 * text: anything outside printable ASCII (and commas) is percent-encoded, a lone surrogate
 * first becoming U+FFFD (it has no UTF-8 form). The list is cut to a length and then ends with
 * `... (+N more)`. Total and ASCII: it is built before a render is queued, and nothing that can
 * throw may run between queueing and answering.
 */
export function ignoredOptionsHeader(ignored: readonly string[]): string | undefined {
  if (ignored.length === 0) return undefined;
  const names: string[] = [];
  let length = 0;
  for (const [index, name] of ignored.entries()) {
    const safe = headerSafeName(name);
    const more = ignored.length - index - 1;
    // Room for this name, and for the tail should another name not fit after it.
    const tail = more > 0 ? `, ... (+${more} more)`.length : 0;
    const added = (names.length > 0 ? 2 : 0) + safe.length;
    if (length + added + tail > MAX_IGNORED_HEADER) {
      const left = ignored.length - index;
      return names.length > 0 ? `${names.join(", ")}, ... (+${left} more)` : `... (+${left} more)`;
    }
    names.push(safe);
    length += added;
  }
  return names.join(", ");
}

/** One ignored name as header text: printable ASCII as it is, anything else percent-encoded (cut to 200 characters). */
function headerSafeName(name: string): string {
  if (/^[\x21-\x7e]{1,200}$/.test(name) && !name.includes(",")) return name;
  const cut = Array.from(name.slice(0, 400)).slice(0, 200).join("").replace(LONE_SURROGATE, "\ufffd");
  return encodeURIComponent(cut);
}

/** Names the ignored options in `X-Ignored-Options` (see `ignoredOptionsHeader`). */
export function reportIgnored(event: H3Event, ignored: readonly string[]): void {
  const value = ignoredOptionsHeader(ignored);
  if (value !== undefined) answerHeaders(event)["x-ignored-options"] = value;
}

/**
 * `Content-Disposition: attachment` for a client-chosen file name (RFC 6266): the base name, cut to
 * 200 characters, as a quoted ASCII `filename` (other characters become `_`) and, when that is not the
 * exact name, an RFC 8187 `filename*=UTF-8''…` with every character outside attr-char (`'()*`, spaces,
 * non-ASCII) percent-encoded.
 */
export function attachment(name: string): string {
  const cut = Array.from(name.replace(LONE_SURROGATE, "\ufffd")).slice(0, 200).join("");
  return contentDisposition(cut, { type: "attachment", fallback: basename(cut).replace(/[^\x20-\x7e]/g, "_") });
}

/**
 * Types a browser shows without running anything in them: raster images, PDF, audio and video.
 * Everything else (HTML, SVG, MHTML, markdown, XML, text, a third-party format's own type) is
 * treated as a document that could run script.
 */
const INERT_CONTENT = /^(image\/(png|jpeg|webp|avif|gif)|application\/pdf|video\/[\w.+-]+|audio\/[\w.+-]+)\s*(;|$)/i;

/** The sandbox rendered documents are served under: no script, no forms, no plugins, an opaque origin. */
export const RENDER_DOCUMENT_CSP = "sandbox; default-src 'none'; img-src * data:; style-src * 'unsafe-inline'; font-src * data:";

/**
 * Headers of every answer that carries a render's bytes (render links, `response_type`
 * `binary`/`base64`, `/renders/`): `nosniff`, so the declared type is the one a browser uses, and
 * for anything a browser could run as a document a sandboxing CSP, so a rendered page (which keeps
 * its `on*` attributes) never runs script on the service's origin.
 */
export function renderBytesHeaders(contentType: string): Record<string, string> {
  const headers: Record<string, string> = { "x-content-type-options": "nosniff" };
  if (!isInertContent(contentType)) headers["content-security-policy"] = RENDER_DOCUMENT_CSP;
  return headers;
}

/** Whether a browser shows this type without running anything in it (then no sandbox is needed). */
export function isInertContent(contentType: string): boolean {
  return INERT_CONTENT.test(contentType);
}

/** A UTF-16 surrogate without its pair: it has no UTF-8 form, so it cannot be percent-encoded. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Authenticates the request; projects changed meanwhile (`projects.json` or Redis) are re-read first, at most once a second. */
export async function projectOf(event: H3Event, ctx: AppContext): Promise<Project> {
  const header = event.req.headers.get("authorization");
  // At most once a second: a project disabled (or re-enabled) by the CLI takes effect here too.
  await ctx.projects.refreshIfChanged();
  let project: Project;
  try {
    project = authenticate(header, ctx.projects);
  } catch (error) {
    if (!isRenderError(error) || error.code !== "ApiKeyNotFound" || !(await ctx.projects.refreshIfChanged())) throw error;
    project = authenticate(header, ctx.projects);
  }
  event.context.projectId = project.id; // for the access log
  return project;
}

/** Authenticates a request that is not counted (status lookups) and reports the project's limit. */
export async function lookupProject(event: H3Event, ctx: AppContext): Promise<Project> {
  const project = await projectOf(event, ctx);
  Object.assign(answerHeaders(event), ctx.limits.headers(await ctx.limits.peek(project)));
  return project;
}
