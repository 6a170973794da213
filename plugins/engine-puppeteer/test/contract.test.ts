import { ConsoleLogger } from "@renderkit/core";
import { engineContract } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";

engineContract({ name: "puppeteer", make: () => new PuppeteerEngine({}, new ConsoleLogger("silent")) });
