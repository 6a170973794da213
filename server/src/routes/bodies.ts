import type { ErrorCode } from "@renderkit/core";
import type { H3Event } from "h3";
import { errorResponse, STATUS } from "../http/errors.js";
import { answerHeaders, requestId } from "../http/respond.js";
import type { RenderRecord } from "../state/records.js";

/** Fields of a finished render shown to clients: the spec's five, then side renders and extras. */
export function resultBody(record: RenderRecord): Record<string, unknown> {
  const {
    key: _key,
    location: _location,
    contentType: _type,
    format: _format,
    ...rest
  } = record.result ?? ({} as NonNullable<RenderRecord["result"]>);
  const { renderUrl, size, renderTime, queueTime, bandwidth, ...extras } = rest;
  return { renderId: record.renderId, renderUrl, size, renderTime, queueTime, bandwidth, ...extras };
}

/** The status record of the spec. */
export function statusBody(record: RenderRecord, baseUrl: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    renderId: record.renderId,
    statusUrl: `${baseUrl}/v1/render/${encodeURIComponent(record.renderId)}`,
    status: record.status,
  };
  if (record.status === "succeeded") Object.assign(body, resultBody(record));
  if (record.status === "failed") body.reason = record.reason;
  return body;
}

/** A sync render that failed: the failure's code decides the status (500 for engine failures). */
export function failureResponse(event: H3Event, record: RenderRecord): Response {
  const code = (record.code ?? "EngineResponseNotOkError") as ErrorCode;
  const status = STATUS[code] ?? 500;
  return errorResponse(status, record.reason ?? "The render failed", code, requestId(event), answerHeaders(event));
}
