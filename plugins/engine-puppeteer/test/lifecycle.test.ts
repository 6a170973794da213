import { ConsoleLogger } from "@renderkit/core";
import { engineLifecycleContract } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";

engineLifecycleContract("puppeteer", (options, logger) => new PuppeteerEngine(options, logger ?? new ConsoleLogger("silent")), {
  module: "@renderkit/engine-puppeteer",
  export: "PuppeteerEngine",
});
