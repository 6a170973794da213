import { availableParallelism } from "node:os";
import sharp from "sharp";

/**
 * Default libvips threads per image: the cores, at most 4. sharp picks 1 on glibc Linux (to limit
 * memory fragmentation without jemalloc); 2 halves AVIF time on 2 cores, and beyond 4 threads one
 * screenshot gains little while concurrent renders compete for the same cores.
 */
export function defaultConcurrency(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * Sets sharp's process-wide state: libvips threads per image, and no operation cache (a render
 * service never converts the same bytes twice, so a cache only holds memory between renders).
 * Process-wide: with two renderers in one process, the last one registered decides.
 */
export function configureSharp(concurrency: number): void {
  sharp.concurrency(concurrency);
  sharp.cache(false);
}
