import { ConsoleLogger } from "@renderkit/core";
import { engineContract } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";

engineContract("puppeteer", () => new PuppeteerEngine({}, new ConsoleLogger("silent")));
