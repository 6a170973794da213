// Module hooks of `register.mjs`: resolve records each address of an ESM import (and the
// CommonJS entry points it reaches; `register.mjs` records what `require` resolves).
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.MODULE_TRACE) appendFileSync(process.env.MODULE_TRACE, `${resolved.url}\n`);
  return resolved;
}
