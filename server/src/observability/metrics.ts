import type { EngineStats, RenderEvent, Renderer } from "@renderkit/core";
import type { H3Event } from "h3";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { WebhookAttempt } from "../renderer/types.js";
// The server's fields of RenderJobInfo (the `format` and `engine` labels), wherever this file is compiled.
import type {} from "../state/job-info.js";

/** Render duration buckets in seconds: sub-second screenshots up to long videos. */
const RENDER_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Queue wait buckets in seconds. */
const QUEUE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const label = (value: unknown): string => (typeof value === "string" && value ? value : "unknown");

/**
 * The server's Prometheus metrics, in a registry of its own (two servers in one process do not
 * clash). Render figures come from the renderer's events, so they count the renders this process
 * runs; queue depth and browser figures are read at scrape time.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly renders: Counter<"format" | "engine" | "outcome">;
  private readonly renderSeconds: Histogram<"format" | "engine" | "outcome">;
  private readonly queueSeconds: Histogram<"format" | "engine">;
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly webhooks: Counter<"outcome">;
  private readonly unsubscribe: () => void;

  constructor(renderer: Renderer, options: { browsers: boolean }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.webhooks = new Counter({
      name: "renderkit_webhook_attempts_total",
      help: "Webhook delivery attempts this process made, by outcome: delivered or failed (a failed attempt is retried on the schedule until none is left).",
      labelNames: ["outcome"],
      registers,
    });
    this.renders = new Counter({
      name: "renderkit_renders_total",
      help: "Renders that ended in this process, by format, engine and outcome (succeeded, failed).",
      labelNames: ["format", "engine", "outcome"],
      registers,
    });
    this.renderSeconds = new Histogram({
      name: "renderkit_render_duration_seconds",
      help: "Time spent rendering (all attempts), by format, engine and outcome.",
      labelNames: ["format", "engine", "outcome"],
      buckets: RENDER_BUCKETS,
      registers,
    });
    this.queueSeconds = new Histogram({
      name: "renderkit_queue_duration_seconds",
      help: "Time succeeded renders waited in the queue before their first attempt, by format and engine.",
      labelNames: ["format", "engine"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.requests = new Counter({
      name: "renderkit_http_requests_total",
      help: "HTTP requests answered, by method, matched route pattern and status.",
      labelNames: ["method", "route", "status"],
      registers,
    });
    new Gauge({
      name: "renderkit_queue_renders",
      help: "Renders in the queue at scrape time, by state (waiting, active).",
      labelNames: ["state"],
      registers,
      async collect() {
        const counts = await renderer.queueCounts().catch(() => undefined);
        this.reset();
        if (!counts) return;
        this.set({ state: "waiting" }, counts.waiting);
        this.set({ state: "active" }, counts.active);
      },
    });
    if (options.browsers) browserMetrics(renderer, registers);
    this.unsubscribe = renderer.on((event) => this.observe(event));
  }

  private observe(event: RenderEvent): void {
    if (event.type !== "render.succeeded" && event.type !== "render.failed") return;
    const succeeded = event.type === "render.succeeded";
    const format = label(succeeded ? event.result.format : event.job?.format);
    const engine = label(event.job?.engine);
    const outcome = succeeded ? "succeeded" : "failed";
    this.renders.inc({ format, engine, outcome });
    const seconds = succeeded ? event.result.renderTime / 1000 : Math.max(0, event.endTime - event.startTime) / 1000;
    this.renderSeconds.observe({ format, engine, outcome }, seconds);
    if (succeeded) this.queueSeconds.observe({ format, engine }, Math.max(0, event.result.queueTime) / 1000);
  }

  /** Counts one webhook delivery attempt: delivered, or failed (retried on the schedule unless it was the last). */
  webhookAttempt(attempt: WebhookAttempt): void {
    this.webhooks.inc({ outcome: attempt.delivered ? "delivered" : "failed" });
  }

  /** Counts an answered request under its route pattern (never the raw path). */
  request(event: H3Event, status: number): void {
    const pattern = event.context.matchedRoute?.route;
    const route = !pattern || pattern === "/**" ? "unmatched" : pattern;
    this.requests.inc({ method: event.req.method, route, status: String(status) });
  }

  close(): void {
    this.unsubscribe();
  }
}

/** Browser figures of each engine, read from `engine.stats()` at scrape time. */
function browserMetrics(renderer: Renderer, registers: Registry[]): void {
  const each = (read: (stats: EngineStats) => number) =>
    renderer.engines.map((name) => ({ engine: name, value: read(renderer.engine(name).stats()) }));
  new Counter({
    name: "renderkit_browser_launches_total",
    help: "Browser processes launched by each engine since the server started.",
    labelNames: ["engine"],
    registers,
    collect() {
      this.reset();
      for (const { engine, value } of each((s) => s.launches)) this.inc({ engine }, value);
    },
  });
  new Counter({
    name: "renderkit_browsers_retired_total",
    help: "Launched browsers no longer running: recycled after their share of renders, crashed or closed.",
    labelNames: ["engine"],
    registers,
    collect() {
      this.reset();
      for (const { engine, value } of each((s) => Math.max(0, s.launches - s.browsers))) this.inc({ engine }, value);
    },
  });
  new Gauge({
    name: "renderkit_browsers",
    help: "Live browser processes of each engine.",
    labelNames: ["engine"],
    registers,
    collect() {
      this.reset();
      for (const { engine, value } of each((s) => s.browsers)) this.set({ engine }, value);
    },
  });
  new Gauge({
    name: "renderkit_browser_pages",
    help: "Open pages (renders in a browser) of each engine.",
    labelNames: ["engine"],
    registers,
    collect() {
      this.reset();
      for (const { engine, value } of each((s) => s.pages)) this.set({ engine }, value);
    },
  });
}
