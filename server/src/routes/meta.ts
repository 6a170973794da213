import { createHash, timingSafeEqual } from "node:crypto";
import type { H3, H3Event } from "h3";
import type { AppContext } from "../http/context.js";
import { headOf, json } from "../http/respond.js";
import { serverOptionTable } from "../http/server-options.js";
import { openApiDocument } from "../openapi/document.js";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * True when the request carries the operator's credential, `Authorization: Bearer <metrics.token>`
 * (the one admin token the server has), compared in constant time. No token configured: nobody.
 */
function isOperator(event: H3Event, token: string | undefined): boolean {
  if (!token) return false;
  const match = /^Bearer (\S+)$/.exec(event.req.headers.get("authorization") ?? "");
  return timingSafeEqual(digest(match?.[1] ?? ""), digest(token));
}

/**
 * Liveness, readiness and the OpenAPI document. `/ready` tells anyone whether this node takes
 * renders (200 `{ status: "ready" }`, or 503 with the reason); its figures (role, engine and queue
 * counts, formats) tell an attacker how loaded the server is and which engines crash, so they go
 * only to a request with the metrics token.
 */
export function metaRoutes(app: H3, ctx: AppContext): void {
  const health = (event: H3Event) => json(event, 200, { status: "ok" });
  // Not ready while draining or while the queue is full: a load balancer sends work elsewhere.
  const ready = async (event: H3Event) => {
    const unavailable = (message: string) =>
      json(
        event,
        503,
        { status: "unavailable", error: { message, code: "ServiceUnavailable" }, requestId: event.context.requestId },
        { "retry-after": "5" },
      );
    if (ctx.state.draining) return unavailable("Draining for shutdown");
    // A queue that cannot be asked (Redis unreachable) cannot take renders either.
    const queue = await ctx.renderer.queueCounts().catch(() => undefined);
    if (!queue) return unavailable("The render queue is unreachable");
    if (queue.waiting >= ctx.config.maxQueued) return unavailable("The render queue is full");
    if (!isOperator(event, ctx.config.metrics.token)) return json(event, 200, { status: "ready" });
    const engines = Object.fromEntries(ctx.renderer.engines.map((name) => [name, ctx.renderer.engine(name).stats()]));
    return json(
      event,
      200,
      {
        status: "ready",
        role: ctx.role,
        ...(ctx.role === "api" ? {} : { engines }),
        queue,
        formats: ctx.renderer.formats,
      },
      { "cache-control": "no-store" },
    );
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
