import type { Logger, Renderer } from "@renderkit/core";
import type { ServerConfig } from "../config/types.js";
import type { ProjectStore } from "../projects/store.js";
import type { Destinations } from "../renderer/destinations.js";
import type { Role, WebhookAttempts } from "../renderer/types.js";
import type { ProjectLoad } from "../state/load.js";
import type { RateLimits } from "../state/rate-limit.js";
import type { RenderRecords } from "../state/records.js";

/** What every route may use; built once by `createApp`. */
export interface AppContext {
  renderer: Renderer;
  /** Render records: files in one process, Redis hashes shared by API and worker nodes. */
  store: RenderRecords;
  projects: ProjectStore;
  limits: RateLimits;
  /** Renders each project has waiting or running (`maxQueuedPerProject`). */
  load: ProjectLoad;
  /** Project buckets and presigned uploads (`use_s3`, `s3_presigned_url`). */
  destinations: Destinations;
  /** This process's webhook delivery attempts (metrics); absent when the app is built without them. */
  webhooks?: WebhookAttempts;
  /** What this process does: `all` (API and renders) or `api` (API only; workers render). */
  role: Exclude<Role, "worker">;
  config: ServerConfig;
  logger: Logger;
  /** Public base address without a trailing slash. */
  baseUrl: string;
  /**
   * `draining` is set on SIGTERM: no new renders, `/ready` answers 503. `stopWaiting` aborts once
   * the drain bound is over: requests still waiting for a render answer at once (a 307 to wait
   * again after the restart, or 503), so they do not hold the shutdown.
   */
  state: { draining: boolean; stopWaiting: AbortController };
}
