import { JobNotDone } from "./contracts/queue.js";
import type { RunGateRequest } from "./contracts/run-gate.js";
import { RenderError } from "./errors.js";
import type { RendererSettings } from "./settings.js";
import { withTimeout } from "./util/timeout.js";

/** Longest the run gate may take to answer; past it the render waits in the queue instead. */
export const RUN_GATE_TIMEOUT_MS = 10_000;

/**
 * Asks the renderer's run gate (`RendererSettings.runGate`) about a render. Resolves undefined
 * when it may go on (or there is no gate); resolves the gate's `RenderError` when it may not,
 * made final (not retryable: a refusal is an answer, not a fault). Throws `JobNotDone` when the
 * gate could not answer, so the render waits in the queue rather than run unchecked or be lost.
 */
export async function askRunGate(settings: RendererSettings, request: RunGateRequest): Promise<RenderError | undefined> {
  const gate = settings.runGate;
  if (!gate) return undefined;
  try {
    await withTimeout(gate(request), RUN_GATE_TIMEOUT_MS, () => new Error(`no answer within ${RUN_GATE_TIMEOUT_MS} ms`));
    return undefined;
  } catch (error) {
    if (error instanceof RenderError) {
      return error.retryable ? new RenderError(error.code, error.message, { details: error.details, cause: error }) : error;
    }
    const why = error instanceof Error ? error.message : String(error);
    throw new JobNotDone(`Render ${request.renderId} waits: its run gate could not answer (${why})`, 5_000, { cause: error });
  }
}

/**
 * The run gate before an attempt stores a file (a side file or the render itself): a render it
 * stops while running (on the server: its project was disabled) stores and reports nothing more.
 * Throws the refusal (the renderer does not retry it) or `JobNotDone`.
 */
export async function beforeStore(
  settings: RendererSettings,
  plan: Pick<RunGateRequest, "renderId" | "options" | "job" | "attempt">,
): Promise<void> {
  const { renderId, options, job, attempt } = plan;
  const refusal = await askRunGate(settings, { renderId, options, job, attempt, stage: "store" });
  if (refusal) throw refusal;
}
