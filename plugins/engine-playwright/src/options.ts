import type { BrowserEngineOptions } from "@renderkit/core/chromium";
import type { InjectionToken } from "tsyringe";

/** Settings of the Playwright engine; all optional. */
export interface PlaywrightOptions extends BrowserEngineOptions {
  /**
   * Open the next render's context and page while the current one runs. Default false: on a
   * 2-core machine the spare's renderer process competes with the running render for CPU and
   * cost 10-45 % throughput in `npm run bench`; it lowers latency where cores sit idle.
   */
  prewarm?: boolean;
}

export const PLAYWRIGHT_OPTIONS: InjectionToken<PlaywrightOptions> = Symbol.for("renderkit.engine-playwright.options");
