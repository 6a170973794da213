import { ConsoleLogger } from "@renderkit/core";
import { engineLifecycleContract } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";

engineLifecycleContract("playwright", (options) => new PlaywrightEngine(options, new ConsoleLogger("silent")), {
  module: "@renderkit/engine-playwright",
  export: "PlaywrightEngine",
});
