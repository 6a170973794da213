import type { InjectionToken } from "tsyringe";

/** Settings of the Playwright engine; all optional. */
export interface PlaywrightOptions {
  /** Chromium to launch; default: `RENDERKIT_CHROMIUM`, then Debian's Chromium, then a managed one. */
  executablePath?: string;
  /** Extra Chromium flags. */
  args?: string[];
  /** Pages open at once in this engine. Default 4. */
  concurrency?: number;
  /** Relaunch the browser after this many renders (memory hygiene). Default 200. */
  recycleAfter?: number;
  /**
   * Open the next render's context and page while the current one runs. Default false: on a
   * 2-core machine the spare's renderer process competes with the running render for CPU and
   * cost 10-45 % throughput in `npm run bench`; it lowers latency where cores sit idle.
   */
  prewarm?: boolean;
}

export const PLAYWRIGHT_OPTIONS: InjectionToken<PlaywrightOptions> = Symbol.for("renderkit.engine-playwright.options");
