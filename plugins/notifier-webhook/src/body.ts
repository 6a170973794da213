import type { RenderEvent } from "@renderkit/core";

/** The two events that end a render and produce a webhook (spec "Events"). */
export type FinalRenderEvent = Extract<RenderEvent, { type: "render.succeeded" | "render.failed" }>;

/** Result fields beyond the spec's five, sent when the render has them (DESIGN §3 side renders). */
const OPTIONAL_RESULT_FIELDS = ["htmlUrl", "markdownUrl", "metadataUrl", "metadata"] as const;

/** True for `render.succeeded` and `render.failed`. */
export function isFinalEvent(event: RenderEvent): event is FinalRenderEvent {
  return event.type === "render.succeeded" || event.type === "render.failed";
}

/** ISO 8601 UTC with milliseconds (`2025-01-02T03:04:05.678Z`). */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The webhook body, compact JSON with the spec's keys in the spec's order. Internal fields of
 * the result (storage key, local path, formatter extras) and the submitter's `meta` are never sent.
 */
export function webhookBody(event: FinalRenderEvent): string {
  const meta = { startTime: iso(event.startTime), endTime: iso(event.endTime) };
  if (event.type === "render.failed") {
    return JSON.stringify({ event: event.type, renderId: event.renderId, error: { message: event.reason }, meta });
  }
  const { renderUrl, size, renderTime, queueTime, bandwidth } = event.result;
  const result: Record<string, unknown> = { renderUrl, size, renderTime, queueTime, bandwidth };
  for (const field of OPTIONAL_RESULT_FIELDS) {
    if (event.result[field] !== undefined) result[field] = event.result[field];
  }
  return JSON.stringify({ event: event.type, renderId: event.renderId, result, meta });
}
