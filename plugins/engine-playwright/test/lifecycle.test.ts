import { ConsoleLogger } from "@renderkit/core";
import { engineLifecycleContract } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";

engineLifecycleContract("playwright", (options, logger) => new PlaywrightEngine(options, logger ?? new ConsoleLogger("silent")), {
  module: "@renderkit/engine-playwright",
  export: "PlaywrightEngine",
});
