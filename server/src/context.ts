import type { Logger, Renderer } from "@renderkit/core";
import type { ProjectLoad } from "./http/project-load.js";
import type { RateLimits } from "./http/rate-limit.js";
import type { ProjectStore } from "./projects.js";
import type { RenderStore } from "./render-store.js";
import type { ServerConfig } from "./types.js";

/** What every route may use; built once by `createApp`. */
export interface AppContext {
  renderer: Renderer;
  store: RenderStore;
  projects: ProjectStore;
  limits: RateLimits;
  /** Renders each project has waiting or running (`maxQueuedPerProject`). */
  load: ProjectLoad;
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
