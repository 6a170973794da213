import { basename } from "node:path";
import { isRenderError } from "@renderkit/core";
import contentDisposition from "content-disposition";
import type { H3Event } from "h3";
import type { AppContext } from "../context.js";
import type { Project } from "../types.js";
import { authenticate } from "./auth.js";

/** JSON answer with the request id and any extra headers. */
export function json(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId(event), ...headers },
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

/** Longest `X-Ignored-Options` value; past it the list ends with `…`. */
const MAX_IGNORED_HEADER = 1_000;

/**
 * Names the ignored options in `X-Ignored-Options`. Names are the client's text: anything outside
 * printable ASCII is percent-encoded (a header cannot carry it), and the list is cut to a length.
 */
export function reportIgnored(event: H3Event, ignored: readonly string[]): void {
  if (ignored.length === 0) return;
  let value = "";
  for (const name of ignored) {
    const safe = /^[\x21-\x7e]{1,200}$/.test(name) && !name.includes(",") ? name : encodeURIComponent(name.slice(0, 200));
    const next = value === "" ? safe : `${value}, ${safe}`;
    if (next.length > MAX_IGNORED_HEADER) {
      value = `${value}, …`;
      break;
    }
    value = next;
  }
  answerHeaders(event)["x-ignored-options"] = value;
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
