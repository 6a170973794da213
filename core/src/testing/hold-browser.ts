/** Child process of the lifecycle contract: opens a page, prints the browser pid and profile, waits to be SIGKILLed. */
import { readFileSync } from "node:fs";
import { ConsoleLogger } from "../defaults/console-logger.js";
import { AddressPolicy } from "../network/address-policy.js";
import { makePageSettings } from "./page-settings.js";

// argv: the engine package and the exported engine class (see engineLifecycleContract).
const [, , moduleName = "", exportName = ""] = process.argv;
const EngineClass = (await import(moduleName))[exportName];

const engine = new EngineClass({}, new ConsoleLogger("silent"));
const settings = makePageSettings(new AddressPolicy(), { width: 400, height: 300, timeoutMs: 10_000 });
await engine.open({ html: "<p>held</p>" }, settings, new AbortController().signal);
const [pid] = engine.browserPids();
const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
const dir = args.find((a) => a.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length);
process.stdout.write(`${JSON.stringify({ pid, dir })}\n`);
setInterval(() => {}, 1000);
