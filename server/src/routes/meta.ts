import type { H3, H3Event } from "h3";
import type { AppContext } from "../context.js";
import { json } from "../http/respond.js";
import { openApiDocument } from "../openapi.js";
import { serverOptionTable } from "../server-options.js";

/** Liveness, readiness and the OpenAPI document. */
export function metaRoutes(app: H3, ctx: AppContext): void {
  app.get("/health", (event: H3Event) => json(event, 200, { status: "ok" }));
  app.get("/ready", (event: H3Event) => {
    if (ctx.state.draining) {
      return json(
        event,
        503,
        { error: { message: "Draining for shutdown", code: "ServiceUnavailable" }, requestId: event.context.requestId },
        { "retry-after": "5" },
      );
    }
    const engines = Object.fromEntries(ctx.renderer.engines.map((name) => [name, ctx.renderer.engine(name).stats()]));
    return json(event, 200, { status: "ready", engines, formats: ctx.renderer.formats });
  });
  app.head("/health", () => new Response(null, { status: 200 }));
  // The request schema: the renderer's option table plus the options the server handles itself.
  const table = { ...ctx.renderer.optionTable, ...serverOptionTable(ctx.config) };
  const document = openApiDocument(table, ctx.renderer.formats, ctx.baseUrl);
  app.get("/v1/openapi.json", (event: H3Event) => json(event, 200, document));
}
