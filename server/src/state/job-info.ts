/**
 * The server's own fields of a render's job info: what travels with a render through the queue,
 * so that a worker, the records and the metrics know them. Set at admission (`routes/admit.ts`).
 */

/** The answers a request may ask for with `response_type` (`jsondebug` is refused, see `takeServerOptions`). */
export const RESPONSE_TYPES = ["json", "binary", "base64", "none"] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The server's fields of a render's job info (typed for every reader in this package). */
declare module "@renderkit/core" {
  interface RenderJobInfo {
    /** The `response_type` a sync request asked for, so that its redirect address answers the same way. */
    responseType?: ResponseType;
    /** Metric label: the format asked for (a failed render has no result to name it). */
    format?: string;
    /** Metric label: the engine that ran the render. */
    engine?: string;
  }
}
