import type { FinalRenderEvent, RenderEvent, RenderResult, RenderStatus } from "@renderkit/core";
// The server's fields of RenderJobInfo (`responseType`), wherever this file is compiled.
import type {} from "./job-info.js";

/** What the server remembers of a render: enough for the status endpoint and the redirect path. */
export interface RenderRecord {
  renderId: string;
  projectId: string;
  status: RenderStatus;
  createdAt: number;
  attempt: number;
  /** Public result fields, present once `succeeded`. */
  result?: Omit<RenderResult, "path" | "key" | "renderId"> & { key: string };
  /** Human reason and code, present once `failed`. */
  reason?: string;
  code?: string;
  /** When the record (and its render) may be forgotten. */
  expiresAt: number;
  /** Seconds a sync request for this render waits before redirecting. */
  redirectAfter?: number;
  /** The `response_type` a sync request asked for, so its redirect address answers the same way. */
  responseType?: string;
  /** When the render's work started and ended (epoch ms), once it ended. */
  startTime?: number;
  endTime?: number;
}

/**
 * Render records: one per render, written from the renderer's events, read by the status
 * endpoint and the sync waits. Files in one process (`RenderStore`), a hash per render in Redis
 * for API and worker nodes (`RedisRenderRecords`). A record's end is written once: a later
 * final event for the same render does not change it.
 */
export interface RenderRecords {
  /** Applies a renderer event; resolves once it is stored (the renderer waits for it). */
  apply(event: RenderEvent): Promise<void>;
  /** The record of `renderId`; undefined when unknown or expired. */
  get(renderId: string): Promise<RenderRecord | undefined>;
  /** The final event of a render whose end is on record (`RendererSettings.finalEvent`). */
  finalEvent(renderId: string): Promise<FinalRenderEvent | undefined>;
  /** Resolves with the record once the render ended, or with its current state after `timeoutMs`. */
  wait(renderId: string, timeoutMs: number, signal?: AbortSignal): Promise<RenderRecord | undefined>;
  /** Removes expired records (hourly); resolves with how many. */
  sweep(now?: number): Promise<number>;
  /** Waits for pending writes (shutdown). */
  flush(): Promise<void>;
  /** Releases connections. */
  close?(): Promise<void>;
}

export const TERMINAL = new Set<RenderStatus>(["succeeded", "failed"]);

/** The record a `render.created` event starts. */
export function newRecord(event: RenderEvent, ttlMs: number, now = Date.now()): RenderRecord {
  const { job } = event;
  const record: RenderRecord = {
    renderId: event.renderId,
    projectId: job?.projectId ?? "",
    status: "created",
    createdAt: now,
    attempt: 1,
    expiresAt: now + ttlMs,
  };
  if (job?.redirectAfter !== undefined) record.redirectAfter = job.redirectAfter;
  if (job?.responseType !== undefined) record.responseType = job.responseType;
  return record;
}

/** The fields a final event sets on a record. */
export function endFields(event: FinalRenderEvent): Partial<RenderRecord> {
  if (event.type === "render.failed") {
    return { status: "failed", reason: event.reason, code: event.code, startTime: event.startTime, endTime: event.endTime };
  }
  const { path: _path, renderId: _id, ...result } = event.result;
  return { status: "succeeded", result, startTime: event.startTime, endTime: event.endTime };
}

/** A recorded end, rebuilt as the final event (a redelivered job is not run twice). */
export function finalEventOf(record: RenderRecord | undefined): FinalRenderEvent | undefined {
  if (!record || !TERMINAL.has(record.status)) return undefined;
  const { renderId } = record;
  const startTime = record.startTime ?? record.createdAt;
  const endTime = record.endTime ?? startTime;
  if (record.status === "failed") {
    const code = record.code ?? "EngineResponseNotOkError";
    return { type: "render.failed", renderId, code, reason: record.reason ?? "The render failed", startTime, endTime };
  }
  const result = { ...record.result, renderId } as RenderResult;
  return { type: "render.succeeded", renderId, result, startTime, endTime };
}
