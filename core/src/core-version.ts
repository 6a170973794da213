import { readFileSync } from "node:fs";
import { satisfies, validRange } from "semver";
import type { PluginManifest } from "./plugin.js";

/**
 * This core's version, read from its package.json when the module loads (`src` and `dist` both
 * sit one level below it). Read rather than imported: the file lies outside `src`, the root tsc
 * compiles, and a JSON import would need import attributes.
 */
export const CORE_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/**
 * Refuses a plugin whose `core` range leaves out this core's version. Ranges are npm's (the
 * `semver` package), so a plugin can copy its `peerDependencies` range. Pre-releases are compared
 * by precedence (`0.1.1-rc.1` is within `^0.1.0`): the core is already installed, and npm's rule
 * that keeps pre-releases out of ranges is about what to install.
 */
export function checkCoreRange(plugin: PluginManifest): void {
  const range: unknown = plugin.core;
  if (range === undefined) return;
  if (typeof range !== "string" || validRange(range) === null) {
    throw new TypeError(`Plugin ${plugin.name}: core must be a version range such as "^0.1.0", got ${JSON.stringify(range)}`);
  }
  if (!satisfies(CORE_VERSION, range, { includePrerelease: true })) {
    throw new Error(
      `Plugin ${plugin.name} supports @renderkit/core ${range}, but this is @renderkit/core ${CORE_VERSION}: ` +
        `install a version of the plugin made for this core, or a core within ${range}`,
    );
  }
}
