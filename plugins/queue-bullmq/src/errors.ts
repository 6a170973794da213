import { RenderError } from "@renderkit/core";

/** `add` after `close()`: the caller should try another node (503 with Retry-After). */
export function shuttingDown(): RenderError {
  return new RenderError("ServiceUnavailable", "The render queue is shutting down; try again later", { retryable: true });
}

/** Every Redis failure a caller can see: retryable, with the driver's error kept as the cause for the log. */
export function unavailable(cause: unknown): RenderError {
  if (cause instanceof RenderError) return cause;
  return new RenderError("ServiceUnavailable", "The render queue (Redis) is unavailable; try again later", {
    cause,
    retryable: true,
  });
}

/** The reason a running job's signal carries when `close()` ran out of time (as the other queues). */
export function stoppedByShutdown(): RenderError {
  return new RenderError("TimedOutError", "The render was stopped by shutdown");
}
