// Module hooks of `register.mjs`: resolve records each address (ESM imports and the packages'
// entry points; what a CommonJS package requires inside itself is not seen, its entry is).
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.MODULE_TRACE) appendFileSync(process.env.MODULE_TRACE, `${resolved.url}\n`);
  return resolved;
}
