export { PLAYWRIGHT_OPTIONS, type PlaywrightOptions } from "./options.js";
export { PlaywrightEngine } from "./playwright-engine.js";
export { PlaywrightSession } from "./playwright-session.js";
export { playwright } from "./plugin.js";
