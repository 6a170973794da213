import type { ParsedOptions, RenderJobInfo } from "@renderkit/core";
import type { Project } from "../config/types.js";
import type { AppContext } from "../http/context.js";
import type { ResponseType, ServerOptions } from "../http/server-options.js";

/** The server's own fields of a render's job info (typed for every reader in this package). */
declare module "@renderkit/core" {
  interface RenderJobInfo {
    /** The `response_type` a sync request asked for, so that its redirect address answers the same way. */
    responseType?: ResponseType;
    /** Metric label: the format asked for (a failed render has no result to name it). */
    format?: string;
    /** Metric label: the engine that ran the render. */
    engine?: string;
  }
}

/**
 * What the core and the plugins are told about a render the server admits: its project, its
 * webhook, how its sync request waits, and the metric labels (never sent in webhooks or kept
 * in records).
 */
export function jobInfo(ctx: AppContext, project: Project, parsed: ParsedOptions, server: ServerOptions): RenderJobInfo {
  return {
    projectId: project.id,
    format: parsed.options.format,
    engine: parsed.options.engine ?? ctx.renderer.engines[0],
    ...(server.webhookUrl ? { webhookUrl: server.webhookUrl } : {}),
    redirectAfter: server.redirectAfter,
    ...(server.responseType ? { responseType: server.responseType } : {}),
  };
}
