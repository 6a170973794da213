import type { FinalRenderEvent, RenderResult } from "./contracts/events.js";
import { ERROR_CODES, type ErrorCode, RenderError } from "./errors.js";

/** A recorded error code as the spec's code (records are plain JSON). */
function knownCode(code: string): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "EngineResponseNotOkError";
}

interface Waiter {
  resolve(result: RenderResult): void;
  reject(error: RenderError): void;
}

/**
 * The `render()` callers waiting for their render's end, by render id. A waiter settles only in
 * the process that runs the render: the job runner settles it when the render ends, the renderer
 * rejects what is left when it closes.
 */
export class RenderWaiters {
  private readonly waiting = new Map<string, Waiter>();

  /** The render's result, or its error; ask before the render is queued, so that no end is missed. */
  wait(renderId: string): Promise<RenderResult> {
    return new Promise<RenderResult>((resolve, reject) => this.waiting.set(renderId, { resolve, reject }));
  }

  /** Drops a waiter whose render was never queued. */
  forget(renderId: string): void {
    this.waiting.delete(renderId);
  }

  /**
   * Answers a `render()` caller with the outcome on record (which may be another process's);
   * `error` is this attempt's own error when that outcome is its failure (it keeps the details).
   */
  settle(ended: FinalRenderEvent, error?: RenderError): void {
    const waiter = this.waiting.get(ended.renderId);
    if (!waiter) return;
    this.waiting.delete(ended.renderId);
    if (ended.type === "render.succeeded") waiter.resolve(ended.result);
    else waiter.reject(error ?? new RenderError(knownCode(ended.code), ended.reason));
  }

  /** Rejects every waiter left, each with an error of its own. */
  rejectAll(error: () => RenderError): void {
    for (const [id, waiter] of this.waiting) {
      waiter.reject(error());
      this.waiting.delete(id);
    }
  }
}
