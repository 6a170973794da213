import type { H3, H3Event } from "h3";
import type { AppContext } from "../context.js";
import { headOf, json } from "../http/respond.js";
import { openApiDocument } from "../openapi.js";
import { serverOptionTable } from "../server-options.js";

/** Liveness, readiness and the OpenAPI document. */
export function metaRoutes(app: H3, ctx: AppContext): void {
  const health = (event: H3Event) => json(event, 200, { status: "ok" });
  // Not ready while draining or while the queue is full: a load balancer sends work elsewhere.
  const ready = async (event: H3Event) => {
    const unavailable = (message: string) =>
      json(
        event,
        503,
        { error: { message, code: "ServiceUnavailable" }, requestId: event.context.requestId },
        { "retry-after": "5" },
      );
    if (ctx.state.draining) return unavailable("Draining for shutdown");
    // A queue that cannot be asked (Redis unreachable) cannot take renders either.
    const queue = await ctx.renderer.queueCounts().catch(() => undefined);
    if (!queue) return unavailable("The render queue is unreachable");
    if (queue.waiting >= ctx.config.maxQueued) return unavailable("The render queue is full");
    const engines = Object.fromEntries(ctx.renderer.engines.map((name) => [name, ctx.renderer.engine(name).stats()]));
    return json(event, 200, {
      status: "ready",
      role: ctx.role,
      ...(ctx.role === "api" ? {} : { engines }),
      queue,
      formats: ctx.renderer.formats,
    });
  };
  app.get("/health", health);
  app.head("/health", headOf(health));
  app.get("/ready", ready);
  app.head("/ready", headOf(ready));
  // The request schema: the renderer's option table plus the options the server handles itself.
  const table = { ...ctx.renderer.optionTable, ...serverOptionTable(ctx.config) };
  const document = openApiDocument(table, ctx.renderer.formats, ctx.baseUrl);
  const openapi = (event: H3Event) => json(event, 200, document);
  app.get("/v1/openapi.json", openapi);
  app.head("/v1/openapi.json", headOf(openapi));
}
