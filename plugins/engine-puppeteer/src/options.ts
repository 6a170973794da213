import type { InjectionToken } from "tsyringe";

/** Settings of the Puppeteer engine; all optional. */
export interface PuppeteerOptions {
  /** Chromium to launch; default: `RENDERKIT_CHROMIUM`, then Debian's Chromium, then a managed one. */
  executablePath?: string;
  /** Extra Chromium flags. */
  args?: string[];
  /** Pages open at once in this engine. Default 4. */
  concurrency?: number;
  /** Relaunch the browser after this many renders (memory hygiene). Default 200. */
  recycleAfter?: number;
}

export const PUPPETEER_OPTIONS: InjectionToken<PuppeteerOptions> = Symbol.for("renderkit.engine-puppeteer.options");
