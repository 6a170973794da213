import { definePlugin, ENGINE } from "@renderkit/core";
import { Lifecycle } from "tsyringe";
import { PUPPETEER_OPTIONS, type PuppeteerOptions } from "./options.js";
import { PuppeteerEngine } from "./puppeteer-engine.js";

/** The Puppeteer engine plugin: `createRenderer({ plugins: [puppeteer()] })`. */
export const puppeteer = definePlugin((options: PuppeteerOptions = {}) => ({
  name: "@renderkit/engine-puppeteer",
  register({ container }) {
    container.register(PUPPETEER_OPTIONS, { useValue: options });
    container.register(ENGINE, { useClass: PuppeteerEngine }, { lifecycle: Lifecycle.ContainerScoped });
  },
}));
