import type { RenderJobInfo } from "./job.js";

/** Public states of a render (docs/api.md "States"). */
export type RenderStatus = "created" | "retrying" | "succeeded" | "failed";

/** What a finished render produced (docs/api.md "Endpoints" gives the fields and their units). */
export interface RenderResult {
  renderId: string;
  /** Address of the stored render. */
  renderUrl: string;
  /** Bytes of the render. */
  size: number;
  /** Milliseconds spent rendering (all attempts). */
  renderTime: number;
  /** Milliseconds spent waiting in the queue. */
  queueTime: number;
  /** Bytes the browser received for the page. */
  bandwidth: number;
  format: string;
  contentType: string;
  /** Storage key of the render. */
  key: string;
  /** Local file path when the storage is on this machine. */
  path?: string;
  /** Where the file went when a destination took it (`use_s3`, `s3_presigned_url`): not shown to clients. */
  location?: Record<string, unknown>;
  /** Formatter extras (`truncated`, `frameRate`...). */
  [extra: string]: unknown;
}

/** Emitted on every state change; notifiers receive the final two. `job` is what the submitter told. */
export type RenderEvent = { job?: RenderJobInfo } & (
  | { type: "render.created"; renderId: string; at: number }
  | { type: "render.started"; renderId: string; attempt: number; at: number }
  | { type: "render.retrying"; renderId: string; attempt: number; reason: string; at: number }
  | { type: "render.succeeded"; renderId: string; result: RenderResult; startTime: number; endTime: number }
  | { type: "render.failed"; renderId: string; code: string; reason: string; startTime: number; endTime: number }
);

/** The two events that end a render: what notifiers deliver and what a durable record keeps. */
export type FinalRenderEvent = Extract<RenderEvent, { type: "render.succeeded" | "render.failed" }>;
