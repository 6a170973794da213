import { type ParsedOptions, RenderError, type RenderJobInfo, type RenderOptions, type RenderOrigin } from "@renderkit/core";
import { newRenderId } from "@renderkit/core/internal";
import type { H3Event } from "h3";
import type { Project } from "../config/types.js";
import type { AppContext } from "../http/context.js";
import { answerHeaders, ignoredOptionsHeader } from "../http/respond.js";
import { checkAddress, type ServerOptions, takeServerOptions } from "../http/server-options.js";

/** How one route admits a render: the steps that differ between the API and render links. */
export interface Admission {
  origin: RenderOrigin;
  /** The request's project, authenticated and enabled (a link: also its tokenless permission). */
  project(): Promise<Project>;
  /** The request's options (the API's body, a link's query); read once the request is counted. */
  options(): Promise<Record<string, unknown>>;
  /** What the route refuses, on the parsed options and the server's own (before anything is queued). */
  refuse?(options: RenderOptions, server: ServerOptions): void;
}

/** A render admitted and queued. */
export interface Admitted {
  project: Project;
  renderId: string;
  server: ServerOptions;
  parsed: ParsedOptions;
}

/**
 * Admits and queues a render: the one order of checks of every render route. Project (and its
 * enabled flag) → rate limit → draining → options → the route's refusals → the project's formats
 * → target and destination addresses → a place in the project's share of the queue (reserved
 * before the job is added, given back when it cannot be) → submit, with the options parsed once.
 *
 * Render links check their token (and the query's form) in `options()`, so after the rate limit,
 * as the API counts a request before reading its body: a wrong token is counted too.
 */
export async function admitRender(event: H3Event, ctx: AppContext, how: Admission): Promise<Admitted> {
  const project = await how.project();
  event.context.projectId = project.id; // for the access log
  await countRequest(event, ctx, project, how.origin);
  if (ctx.state.draining) throw new RenderError("ServiceUnavailable", "The server is shutting down; retry shortly");
  const { server, render } = await takeServerOptions(await how.options(), ctx);
  if (ctx.config.engine && render.engine === undefined) render.engine = ctx.config.engine;
  const parsed = ctx.renderer.parse(render);
  how.refuse?.(parsed.options, server);
  checkPlan(project, parsed.options.format);
  await checkAddress(ctx, parsed.options.url);
  await ctx.destinations.check(project, parsed.options);
  const job = jobInfo(ctx, project, parsed, server);
  const renderId = newRenderId(how.origin);
  // Built before queueing: once the render is queued, only what cannot throw runs until the answer.
  const ignored = ignoredOptionsHeader(parsed.ignored);
  await ctx.load.reserve(project, renderId, projectShare(ctx));
  try {
    await ctx.renderer.submitParsed(parsed, { origin: how.origin, job, renderId });
  } catch (error) {
    await ctx.load.release(project.id, renderId).catch(() => undefined);
    throw error;
  }
  if (ignored !== undefined) answerHeaders(event)["x-ignored-options"] = ignored;
  return { project, renderId, server, parsed };
}

/** Counts the request against the project's rate limit; the limit's headers go on every answer. */
async function countRequest(event: H3Event, ctx: AppContext, project: Project, origin: RenderOrigin): Promise<void> {
  const verdict = await ctx.limits.consume(project);
  Object.assign(answerHeaders(event), ctx.limits.headers(verdict));
  if (verdict.allowed) return;
  // Links have answered without the figures so far; one wording for both is left to another issue.
  const message =
    origin === "link"
      ? "Rate limit reached; retry later"
      : `Rate limit of ${project.rateLimit.requests} requests per ${project.rateLimit.perSeconds} s reached; retry later`;
  throw new RenderError("RateLimitExceededError", message);
}

/** Renders one project may have waiting or running (`maxQueuedPerProject`, else half the queue when shared). */
export function projectShare(ctx: AppContext): number {
  const { maxQueued, maxQueuedPerProject } = ctx.config;
  return maxQueuedPerProject ?? (ctx.projects.list().length > 1 ? Math.max(1, Math.ceil(maxQueued / 2)) : maxQueued);
}

/** Refuses formats the project may not use. */
export function checkPlan(project: Project, format: string): void {
  if (project.formats && !project.formats.includes(format)) {
    throw new RenderError(
      "OptionNotAvailableOnPlan",
      `Format ${format} is not available to this project (allowed: ${project.formats.join(", ")})`,
      { details: { option: "format" } },
    );
  }
}

/**
 * What the core and the plugins are told about a render the server admits: its project, its
 * webhook, how its sync request waits, and the metric labels (never sent in webhooks or kept
 * in records).
 */
function jobInfo(ctx: AppContext, project: Project, parsed: ParsedOptions, server: ServerOptions): RenderJobInfo {
  return {
    projectId: project.id,
    format: parsed.options.format,
    engine: parsed.options.engine ?? ctx.renderer.engines[0],
    ...(server.webhookUrl ? { webhookUrl: server.webhookUrl } : {}),
    redirectAfter: server.redirectAfter,
    ...(server.responseType ? { responseType: server.responseType } : {}),
  };
}
