import type { ErrorCode } from "@renderkit/core";
import { expect } from "vitest";

/** The parts of a RenderError a caller relies on. */
export interface CodedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Asserts that `promise` rejects with a RenderError of `code` and returns it. Compares the
 * `code` property (what API clients see), not the class.
 */
export async function expectRenderError(promise: Promise<unknown>, code: ErrorCode): Promise<CodedError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e ?? new Error("rejected with nothing"),
  );
  expect(error, `expected a rejection with ${code}, but the render succeeded`).toBeDefined();
  expect(error, `expected ${code}, got ${String(error)}`).toMatchObject({ name: "RenderError", code });
  return error as CodedError;
}
