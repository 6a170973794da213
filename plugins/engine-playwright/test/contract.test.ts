import { ConsoleLogger } from "@renderkit/core";
import { engineContract } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";

engineContract({ name: "playwright", make: () => new PlaywrightEngine({}, new ConsoleLogger("silent")) });
