import { Readable } from "node:stream";
import type { Logger } from "./contracts/logger.js";
import { RenderError } from "./errors.js";

/**
 * The failure a caller sees when a render or side file could not be stored for a reason of the
 * storage's own (a bucket down or refusing, a full disk): generic, naming the render only. The
 * storage's own words name buckets, keys, hosts, ports and paths; they go to the log, never into
 * a sync answer, a status `reason` or a webhook.
 */
export function storeFailure(renderId: string, cause?: unknown): RenderError {
  return new RenderError(
    "EngineResponseNotOkError",
    `The render could not be stored: the storage failed (the server log has the details of render ${renderId})`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Runs one store (`Storage.put`, a destination's `put`) and turns a failure of the storage into
 * `storeFailure`, its detail logged. A `RenderError` passes as it is (a destination that maps
 * its failures, such as the caller's own upload address, already said what the caller may know),
 * and so does the error of a body that failed while it was read (the formatter's, not the storage's).
 */
export async function storeOrFail<T>(
  store: () => Promise<T>,
  body: Uint8Array | Readable,
  logger: Logger,
  renderId: string,
): Promise<T> {
  try {
    return await store();
  } catch (error) {
    if (error instanceof RenderError) throw error;
    if (body instanceof Readable && body.errored && body.errored === error) throw error;
    logger.error("storing a render failed", { renderId, error: error instanceof Error ? error.message : String(error) });
    throw storeFailure(renderId, error);
  }
}
