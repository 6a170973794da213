import { definePlugin, ENGINE } from "@renderkit/core";
import { Lifecycle } from "tsyringe";
import { PLAYWRIGHT_OPTIONS, type PlaywrightOptions } from "./options.js";
import { PlaywrightEngine } from "./playwright-engine.js";

/** The Playwright engine plugin: `createRenderer({ plugins: [playwright()] })`. */
export const playwright = definePlugin((options: PlaywrightOptions = {}) => ({
  name: "@renderkit/engine-playwright",
  register({ container }) {
    container.register(PLAYWRIGHT_OPTIONS, { useValue: options });
    container.register(ENGINE, { useClass: PlaywrightEngine }, { lifecycle: Lifecycle.ContainerScoped });
  },
}));
