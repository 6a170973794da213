import { RenderError } from "../errors.js";

/** Names the option when the engine refused a selector or value of it (a 400, not a 500). */
export async function forOption<T>(option: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof RenderError && error.code === "InvalidOptions" && error.details?.option === undefined) {
      throw new RenderError("InvalidOptions", `Option ${option}: ${error.message}`, { cause: error, details: { option } });
    }
    throw error;
  }
}

/** The page did not meet a condition of the request (a missing or present element, a status). */
export function pageError(message: string): RenderError {
  return new RenderError("EngineResponseNotOkError", message);
}
