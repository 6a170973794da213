import { RenderError } from "./errors.js";

/** The render ran out of its `global_timeout` (not retried: the time is spent). */
export function globalTimeoutError(ms: number): RenderError {
  return new RenderError("RenderTimeoutError", `The render did not finish within global_timeout (${ms} ms)`, {
    details: { option: "global_timeout" },
  });
}

/** One attempt's abort controller and the timer that fires it. */
export interface AttemptTimer {
  controller: AbortController;
  clear(): void;
}

/**
 * Aborts an attempt after `budgetMs` (a stall: retryable) or, when `global_timeout` leaves less,
 * after `leftMs` (the render's time is spent: not retried). `parent` (the queue's signal) aborts it too.
 */
export function attemptTimer(
  budgetMs: number,
  leftMs: number,
  globalTimeout: number | undefined,
  parent: AbortSignal,
): AttemptTimer {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        leftMs < budgetMs
          ? globalTimeoutError(globalTimeout ?? 0)
          : new RenderError("RenderTimeoutError", `The render stalled for ${budgetMs} ms`, { retryable: true }),
      ),
    Math.min(budgetMs, leftMs),
  );
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return {
    controller,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    },
  };
}
