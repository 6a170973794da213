import type { RenderJobInfo } from "./job.js";
import type { RenderOptions } from "./render-options.js";

/** What the run gate is asked about: one render at one point of one attempt. */
export interface RunGateRequest {
  renderId: string;
  options: RenderOptions & Record<string, unknown>;
  /** What the submitter told about the render (its project...). */
  job?: RenderJobInfo;
  /** The attempt about to start, or whose files are about to be stored (1 for the first). */
  attempt: number;
  /**
   * `start`: the attempt has not begun (no `render.started` yet, no page opened). `store`: the
   * attempt has rendered and is about to store a file (a side file or the render itself); a
   * refusal here means nothing more of the attempt is stored or reported.
   */
  stage: "start" | "store";
}

/**
 * Decides whether a queued render may (still) run, for conditions that can change while it
 * waits: a project disabled, a plan lost. Resolve to let it go on. Throw a `RenderError` to end
 * the render `failed` with that code and message at once: it is not retried, nothing more is
 * stored, and it gets one final event like any other failure. Throwing anything else means the
 * gate could not decide (its state was unreachable): the render is not lost, the queue hands it
 * out again later (`JobNotDone`). An answer slower than 10 s counts as such a failure.
 */
export type RunGate = (request: RunGateRequest) => Promise<void>;
