import { randomUUID } from "node:crypto";
import { H3, type H3Event } from "h3";
import type { AppContext } from "./http/context.js";
import { HttpProblem, toErrorResponse } from "./http/errors.js";
import { answerHeaders } from "./http/respond.js";
import { logAccess } from "./observability/logging.js";
import { ServerMetrics } from "./observability/metrics.js";
import { docsRoutes } from "./routes/docs.js";
import { fileRoutes } from "./routes/files.js";
import { linkRoutes } from "./routes/links.js";
import { metaRoutes } from "./routes/meta.js";
import { metricsRoutes } from "./routes/metrics.js";
import { renderRoutes } from "./routes/render.js";

const newRequestId = () => `req_${randomUUID()}`;

/** Paths the API knows and their methods, for 405 answers (with `Allow`) to other methods. */
const KNOWN: Record<string, string> = {
  "/v1/render/sync": "POST",
  "/v1/render/async": "POST",
  "/v1/render": "GET, HEAD, POST",
  "/v1/screenshot": "POST",
  "/v1/screenshot/async": "POST",
  "/v1/render/sync/:renderId": "GET, POST",
  "/v1/render/:renderId": "GET, HEAD",
  "/health": "GET, HEAD",
  "/ready": "GET, HEAD",
  "/v1/openapi.json": "GET, HEAD",
  "/docs": "GET, HEAD",
  "/docs/scalar.js": "GET, HEAD",
  "/renders/:key": "GET, HEAD",
};

/**
 * Builds the HTTP app: a fetch function (`app.fetch(request)`), served by listhen through
 * `toNodeHandler(app)`. One middleware gives every answer a request id and turns every thrown
 * error into the API's error body; handlers never shape errors themselves.
 */
export function createApp(ctx: AppContext): H3 {
  // Per app: a registry of its own, fed by this renderer's events.
  const metrics = ctx.config.metrics.enabled ? new ServerMetrics(ctx.renderer, { browsers: ctx.role !== "api" }) : undefined;
  if (metrics && ctx.webhooks) ctx.webhooks.listener = (attempt) => metrics.webhookAttempt(attempt);
  const app = new H3({
    // Only what h3 refuses before the middleware runs (a malformed escape in the path) gets here.
    onError: (error, event) => {
      const requestId = (event.context.requestId as string | undefined) ?? newRequestId();
      const malformed = error.status === 400;
      const problem = malformed ? new HttpProblem(400, "The request path has a malformed percent-escape") : error;
      const response = toErrorResponse(problem, requestId, ctx.logger);
      logAccess(ctx.logger, { requestId, method: event.req.method, route: "(unrouted)", status: response.status, durationMs: 0 });
      return response;
    },
  });
  app.use(async (event: H3Event, next) => {
    const requestId = newRequestId();
    const started = performance.now();
    event.context.requestId = requestId;
    let response: unknown;
    try {
      response = await next();
    } catch (error) {
      response = toErrorResponse(error, requestId, ctx.logger);
    }
    if (response instanceof Response) {
      response.headers.set("x-request-id", requestId);
      for (const [name, value] of Object.entries(answerHeaders(event))) {
        try {
          if (!response.headers.has(name)) response.headers.set(name, value);
        } catch (error) {
          // A value a header cannot carry is dropped, never turned into a 500 after the work was done.
          ctx.logger.warn("a response header was dropped", { requestId, header: name, error: String(error) });
        }
      }
    }
    metrics?.request(event, response instanceof Response ? response.status : (event.res.status ?? 200));
    // The access line: the route pattern, never the path's values or query (render links carry options and tokens).
    logAccess(ctx.logger, {
      requestId,
      method: event.req.method,
      route: event.context.matchedRoute?.route ?? "(unrouted)",
      status: response instanceof Response ? response.status : (event.res.status ?? 200),
      durationMs: performance.now() - started,
      projectId: event.context.projectId as string | undefined,
      renderId: response instanceof Response ? (response.headers.get("x-render-id") ?? undefined) : undefined,
    });
    return response;
  });
  renderRoutes(app, ctx);
  linkRoutes(app, ctx);
  fileRoutes(app, ctx);
  metaRoutes(app, ctx);
  docsRoutes(app);
  if (metrics) metricsRoutes(app, ctx, metrics);
  for (const [path, allow] of Object.entries(KNOWN)) {
    app.all(path, () => {
      throw new HttpProblem(405, `Method not allowed for this path (allowed: ${allow})`, undefined, { allow });
    });
  }
  app.all("/**", () => {
    throw new HttpProblem(404, "No such route");
  });
  return app;
}
