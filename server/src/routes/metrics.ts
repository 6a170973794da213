import { createHash, timingSafeEqual } from "node:crypto";
import type { H3, H3Event } from "h3";
import type { AppContext } from "../http/context.js";
import { HttpProblem } from "../http/errors.js";
import type { ServerMetrics } from "../observability/metrics.js";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** True when the request carries `Authorization: Bearer <token>`; compared in constant time. */
function authorized(event: H3Event, token: string): boolean {
  const header = event.req.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const same = timingSafeEqual(digest(match?.[1] ?? ""), digest(token));
  return same && match !== null;
}

/** `GET /metrics` (Prometheus text format), when `metrics.enabled`; with `metrics.token` it needs that bearer token. */
export function metricsRoutes(app: H3, ctx: AppContext, metrics: ServerMetrics): void {
  const scrape = async (event: H3Event) => {
    const token = ctx.config.metrics.token;
    if (token && !authorized(event, token)) {
      throw new HttpProblem(401, "Scraping metrics needs Authorization: Bearer <metrics token>", "Unauthorized", {
        "www-authenticate": 'Bearer realm="metrics"',
      });
    }
    const body = await metrics.registry.metrics();
    return new Response(event.req.method === "HEAD" ? null : body, {
      status: 200,
      headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
    });
  };
  app.get("/metrics", scrape);
  app.head("/metrics", scrape);
  app.all("/metrics", () => {
    throw new HttpProblem(405, "Method not allowed for this path (allowed: GET, HEAD)", undefined, { allow: "GET, HEAD" });
  });
}
