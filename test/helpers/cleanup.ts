import { afterEach } from "vitest";

/** Steps run after each test, newest first (servers, queues, receivers, child processes, directories). */
export type Cleanup = (() => Promise<unknown>)[];

/**
 * Runs and empties `cleanup`, newest first. Every step runs even when one fails, so nothing is
 * left behind; then the first failure is thrown, so that a close that breaks fails the test.
 */
export async function runCleanup(cleanup: Cleanup): Promise<void> {
  const failures: unknown[] = [];
  for (const step of cleanup.splice(0).reverse()) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/** A cleanup stack of the calling test file, run after each of its tests. */
export function useCleanup(): Cleanup {
  const cleanup: Cleanup = [];
  afterEach(() => runCleanup(cleanup));
  return cleanup;
}
