import { ConsoleLogger } from "@renderkit/core";
import { engineLifecycleContract } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";

engineLifecycleContract({
  name: "puppeteer",
  make: (options, logger) => new PuppeteerEngine(options, logger ?? new ConsoleLogger("silent")),
  holdBrowser: { module: "@renderkit/engine-puppeteer", export: "PuppeteerEngine" },
});
