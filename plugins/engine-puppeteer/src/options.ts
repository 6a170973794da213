import type { BrowserEngineOptions } from "@renderkit/core/chromium";
import type { InjectionToken } from "tsyringe";

/** Settings of the Puppeteer engine; all optional. */
export type PuppeteerOptions = BrowserEngineOptions;

export const PUPPETEER_OPTIONS: InjectionToken<PuppeteerOptions> = Symbol.for("renderkit.engine-puppeteer.options");
