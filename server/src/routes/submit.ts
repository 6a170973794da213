import type { ParsedOptions, RenderOptions, RenderOrigin } from "@renderkit/core";
import { newRenderId } from "@renderkit/core/internal";
import type { H3Event } from "h3";
import type { AppContext } from "../context.js";
import { checkPlan, projectShare, reportIgnored } from "../http/respond.js";
import { checkAddress, type ServerOptions, takeServerOptions } from "../server-options.js";
import type { Project } from "../types.js";

/** A render accepted and queued. */
export interface Submitted {
  renderId: string;
  server: ServerOptions;
  parsed: ParsedOptions;
}

/**
 * Validates and queues a render for `project` (the API's sync and async endpoints and render
 * links): server options, render options, the project's formats, the target and destination
 * addresses, then a place in the project's share of the queue, reserved before the job is added
 * and given back when it cannot be.
 */
export async function submitRender(
  event: H3Event,
  ctx: AppContext,
  project: Project,
  input: Record<string, unknown>,
  origin: RenderOrigin,
  /** Refusals of the calling route, on the parsed options and the server's own (before anything is queued). */
  refuse?: (options: RenderOptions, server: ServerOptions) => void,
): Promise<Submitted> {
  const { server, render } = await takeServerOptions(input, ctx);
  if (ctx.config.engine && render.engine === undefined) render.engine = ctx.config.engine;
  const parsed = ctx.renderer.parse(render);
  refuse?.(parsed.options, server);
  checkPlan(project, parsed.options.format);
  await checkAddress(ctx, parsed.options.url);
  await ctx.destinations.check(project, parsed.options);
  const meta = {
    projectId: project.id,
    // Labels of the render metrics (never sent in webhooks or kept in records).
    format: parsed.options.format,
    engine: parsed.options.engine ?? ctx.renderer.engines[0],
    ...(server.webhookUrl ? { webhookUrl: server.webhookUrl } : {}),
    redirectAfter: server.redirectAfter,
    ...(server.responseType ? { responseType: server.responseType } : {}),
  };
  const renderId = newRenderId(origin);
  await ctx.load.reserve(project, renderId, projectShare(ctx));
  try {
    const { ignored } = await ctx.renderer.submit(render, { origin, meta, renderId });
    reportIgnored(event, ignored);
  } catch (error) {
    await ctx.load.release(project.id, renderId).catch(() => undefined);
    throw error;
  }
  return { renderId, server, parsed };
}
