import type { PageSession } from "./page-session.js";
import type { PageSettings, PageTarget } from "./page-settings.js";

/**
 * What an engine can do; formatters ask before relying on something.
 * `snapshot`: Chromium's MHTML snapshot of the page (`PageSession.snapshot`).
 */
export type EngineCapability = "screenshot" | "pdf" | "content" | "screencast" | "snapshot";

/** Counts used by health checks and leak tests. */
export interface EngineStats {
  /** Live browser processes. */
  browsers: number;
  /** Open pages (sessions not yet closed). */
  pages: number;
  /** Browser launches since the engine was created. */
  launches: number;
  /** Reset pages waiting for the next render of their project (engines that reuse pages). */
  idlePages?: number;
  /** Renders that were given a reset page of an earlier render of their project, since the engine was created. */
  reusedPages?: number;
}

/**
 * A browser automation backend. Implementations keep a warm browser, isolate every
 * session (no cookies, storage or cache shared between renders; a page reused for a render of
 * the same `isolationKey` is reset first, never shared across keys), relaunch after a crash,
 * and own every process and directory they start.
 */
export interface Engine {
  /** Registry key, chosen per request with the `engine` option (`playwright`). */
  readonly name: string;
  /** What this engine supports. */
  readonly capabilities: ReadonlySet<EngineCapability>;
  /** Launches the browser ahead of the first render (optional warm-up). */
  start(): Promise<void>;
  /**
   * Opens an isolated page, navigates to `target` and waits as `settings.waitUntil` says.
   * Throws `RenderError`: `InvalidURLError` for refused addresses, `RenderTimeoutError`,
   * `EngineResponseNotOkError` (retryable when the browser crashed).
   */
  open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession>;
  /** Current counts. */
  stats(): EngineStats;
  /** Closes every page and browser, kills their processes and removes their directories. */
  close(): Promise<void>;
}
