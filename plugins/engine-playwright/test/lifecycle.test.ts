import { ConsoleLogger } from "@renderkit/core";
import { engineLifecycleContract } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";

engineLifecycleContract({
  name: "playwright",
  make: (options, logger) => new PlaywrightEngine(options, logger ?? new ConsoleLogger("silent")),
  holdBrowser: { module: "@renderkit/engine-playwright", export: "PlaywrightEngine" },
});
