// `node --import <this file>`: appends every module the process resolves to the file named by
// MODULE_TRACE (one address a line), so a test can tell which packages a process loaded: ESM
// imports through the resolve hook of `hooks.mjs`, and CommonJS `require` (including a
// `createRequire` of ESM code) through the CommonJS resolver.
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";

register("./hooks.mjs", import.meta.url);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function traced(...args) {
  const resolved = resolveFilename.apply(this, args);
  if (process.env.MODULE_TRACE) appendFileSync(process.env.MODULE_TRACE, `${resolved}\n`);
  return resolved;
};
