export { PUPPETEER_OPTIONS, type PuppeteerOptions } from "./options.js";
export { puppeteer } from "./plugin.js";
export { PuppeteerEngine } from "./puppeteer-engine.js";
export { PuppeteerSession } from "./puppeteer-session.js";
