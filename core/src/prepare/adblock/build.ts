import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { ENGINE_VERSION, FiltersEngine } from "@ghostery/adblocker";
import type { Logger } from "../../contracts/logger.js";
import { readCachedEngine, writeCachedEngine } from "./cache.js";
import { ENGINE_CONFIG } from "./engine-config.js";

const WORKER = new URL("./build-worker.js", import.meta.url);

/** Identifies an engine built from these list texts, in this order, by this library version. */
export function fingerprint(texts: readonly string[]): string {
  const hash = createHash("sha256").update(`renderkit-adblock/${ENGINE_VERSION}/${JSON.stringify(ENGINE_CONFIG)}\n`);
  for (const text of texts) hash.update(createHash("sha256").update(text, "utf8").digest());
  return hash.digest("hex").slice(0, 32);
}

class WorkerUnavailable extends Error {}

/** Parses `text` in a worker thread; resolves with the serialised engine. */
function parseInWorker(text: string, signal: AbortSignal): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("closed"));
    let worker: Worker;
    try {
      worker = new Worker(WORKER, { workerData: { text } });
    } catch (error) {
      return reject(new WorkerUnavailable(String(error)));
    }
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      settle(() => reject(new Error("closed")));
      void worker.terminate();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (bytes: Uint8Array) => settle(() => resolve(bytes)));
    worker.once("error", (error) => settle(() => reject(new WorkerUnavailable(error.message))));
    worker.once("exit", (code) => settle(() => reject(new WorkerUnavailable(`the worker exited with code ${code}`))));
  });
}

/** What `buildEngine` made. */
export interface BuiltEngine {
  engine: FiltersEngine;
  fingerprint: string;
  /** Whether it came from the engine cache (no parsing). */
  cached: boolean;
}

/**
 * The filter engine of these list texts (`id`: their `fingerprint`): the cached serialised engine when its fingerprint
 * matches, else parsed (in a worker thread, in process if workers are unavailable) and cached.
 */
export async function buildEngine(
  texts: readonly string[],
  id: string,
  cacheDir: string,
  signal: AbortSignal,
  logger: Logger,
): Promise<BuiltEngine> {
  const cachedBytes = await readCachedEngine(cacheDir, id);
  if (cachedBytes) {
    try {
      return { engine: FiltersEngine.deserialize(cachedBytes), fingerprint: id, cached: true };
    } catch (error) {
      logger.debug("adblock: the cached engine is unreadable; parsing the lists again", { error: String(error) });
    }
  }
  const text = texts.join("\n");
  let bytes: Uint8Array;
  try {
    bytes = await parseInWorker(text, signal);
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error;
    logger.debug("adblock: parsing in a worker failed; parsing in process", { error: error.message });
    bytes = FiltersEngine.parse(text, ENGINE_CONFIG).serialize();
  }
  const engine = FiltersEngine.deserialize(bytes);
  await writeCachedEngine(cacheDir, id, bytes).catch((error: unknown) =>
    logger.warn("adblock: caching the filter engine failed", { error: String(error) }),
  );
  return { engine, fingerprint: id, cached: false };
}
