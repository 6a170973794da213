import type { FinalRenderEvent, RenderEvent } from "@renderkit/core";

/** The two events that end a render and produce a webhook (spec "Events"); the core's type. */
export type { FinalRenderEvent };

/** Result fields that are the library's own (storage key, local path...), never sent. */
const INTERNAL_RESULT_FIELDS = new Set(["renderId", "key", "path", "location", "contentType", "format"]);

/** True for `render.succeeded` and `render.failed`. */
export function isFinalEvent(event: RenderEvent): event is FinalRenderEvent {
  return event.type === "render.succeeded" || event.type === "render.failed";
}

/** ISO 8601 UTC with milliseconds (`2025-01-02T03:04:05.678Z`). */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The webhook body, compact JSON with the spec's keys in the spec's order. The result carries the
 * spec's five fields first, then what the status record shows too: side renders (`htmlUrl`,
 * `metadata`...) and the format's fields (`width`, `truncated`, `blank`, `frameRate`...). The
 * result's internal fields (storage key, local path) and the submitter's `job` are never sent
 * (the body's own `meta` is the spec's: start and end times).
 */
export function webhookBody(event: FinalRenderEvent): string {
  const meta = { startTime: iso(event.startTime), endTime: iso(event.endTime) };
  if (event.type === "render.failed") {
    return JSON.stringify({ event: event.type, renderId: event.renderId, error: { message: event.reason }, meta });
  }
  const { renderUrl, size, renderTime, queueTime, bandwidth, ...rest } = event.result;
  const result: Record<string, unknown> = { renderUrl, size, renderTime, queueTime, bandwidth };
  for (const [field, value] of Object.entries(rest)) {
    if (!INTERNAL_RESULT_FIELDS.has(field) && value !== undefined) result[field] = value;
  }
  return JSON.stringify({ event: event.type, renderId: event.renderId, result, meta });
}
