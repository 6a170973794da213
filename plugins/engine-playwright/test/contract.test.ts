import { ConsoleLogger } from "@renderkit/core";
import { engineContract } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";

engineContract("playwright", () => new PlaywrightEngine({}, new ConsoleLogger("silent")));
