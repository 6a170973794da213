import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import type SharpModule from "sharp";

/**
 * Default libvips threads per image: the cores, at most 4. sharp picks 1 on glibc Linux (to limit
 * memory fragmentation without jemalloc); 2 halves AVIF time on 2 cores, and beyond 4 threads one
 * screenshot gains little while concurrent renders compete for the same cores.
 */
export function defaultConcurrency(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

const requireModule = createRequire(import.meta.url);
let threads = defaultConcurrency();
let loaded: typeof SharpModule | undefined;

/**
 * sharp, loaded by the first render that needs it rather than by every process that registers
 * the image formats: a png or jpg from one capture is the engine's own bytes, and sharp with
 * libvips is ~24 MB of a process. Loaded with `require` (sharp is CommonJS), so option checks
 * that parse a colour stay synchronous.
 */
export function loadSharp(): typeof SharpModule {
  if (!loaded) {
    loaded = requireModule("sharp") as typeof SharpModule;
    applySettings(loaded);
  }
  return loaded;
}

function applySettings(sharp: typeof SharpModule): void {
  sharp.concurrency(threads);
  sharp.cache(false);
}

/**
 * Sets sharp's process-wide state: libvips threads per image, and no operation cache (a render
 * service never converts the same bytes twice, so a cache only holds memory between renders).
 * Applied when sharp loads, or at once if it is loaded. Process-wide: with two renderers in one
 * process, the last one registered decides.
 */
export function configureSharp(concurrency: number): void {
  threads = concurrency;
  if (loaded) applySettings(loaded);
}
