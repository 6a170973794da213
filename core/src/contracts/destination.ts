import type { Readable } from "node:stream";
import type { FormatSpec } from "./formatter.js";
import type { RenderJobInfo } from "./job.js";
import type { RenderOptions } from "./render-options.js";
import type { StoredMeta } from "./storage.js";

/**
 * A side file that can go to an address the caller signed instead of the renderer's storage
 * (`s3_presigned_url_html`...; each one's option is in `PRESIGNED_SIDES`).
 */
export type PresignedSide = "html" | "markdown" | "metadata" | "mhtml" | "resourceInfo";

/**
 * Where one render's file goes instead of the renderer's storage: a project's own bucket
 * (`use_s3`), an address the caller signed (`s3_presigned_url`); or, asked with
 * `DestinationRequest.side`, where one side file goes (`s3_presigned_url_html`...). Other side
 * files stay in the renderer's storage.
 */
export interface RenderDestination {
  /** Stores the render's bytes; resolves with the stored size. */
  put(body: Uint8Array | Readable, meta: StoredMeta): Promise<{ size: number }>;
  /** The render's address (`renderUrl`). */
  readonly url: string;
  /** The object's key at the destination (the result's `key`). */
  readonly key: string;
  /**
   * JSON description kept with the result as `location`, so the server can find the object
   * again (redirects, render links). Never credentials.
   */
  readonly location?: Record<string, unknown>;
}

/** What a resolver is told about the render. */
export interface DestinationRequest {
  renderId: string;
  options: RenderOptions & Record<string, unknown>;
  /** What the submitter told about the render (its project...). */
  job?: RenderJobInfo;
  format: FormatSpec;
  /**
   * Set when the renderer asks where one side file goes (only when its `s3_presigned_url_*`
   * option is set): answer for that file alone, or `undefined` (the render then fails: the
   * option would be a no-op). Unset: the render itself.
   */
  side?: PresignedSide;
}

/**
 * Picks a render's destination; `undefined` keeps the renderer's storage. Called at the start
 * of every attempt (before the page opens) of a render that asked for one; throwing a
 * `RenderError` fails the render with that code.
 */
export type DestinationResolver = (
  request: DestinationRequest,
) => RenderDestination | undefined | Promise<RenderDestination | undefined>;
