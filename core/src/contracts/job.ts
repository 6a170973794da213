/**
 * What the submitter of a render tells the core and the plugins beyond the options: carried in
 * the queued job (`RenderJobData.job`), on every event (`RenderEvent.job`) and to the destination
 * resolver (`DestinationRequest.job`). JSON only: a durable queue stores it.
 *
 * Extend it with declaration merging, so that readers get types instead of string keys:
 *
 * ```ts
 * declare module "@renderkit/core" {
 *   interface RenderJobInfo {
 *     tenant?: string;
 *   }
 * }
 * ```
 */
export interface RenderJobInfo {
  /** The project the render belongs to (per-project storage, limits, records). */
  projectId?: string;
  /** Where the final event is delivered (`webhook_url`). */
  webhookUrl?: string;
  /** Seconds a sync request waits before answering 307 (`redirect_after`). */
  redirectAfter?: number;
}
