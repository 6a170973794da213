import type { Readable } from "node:stream";
import { expect } from "vitest";
import type { ErrorCode } from "../errors.js";

/** What a rejected call carried, when it is a RenderError-like value. */
export interface CodedError {
  code: string;
  message: string;
}

/**
 * Awaits `promise` and asserts it rejects with a RenderError of `code`. Compares the `code`
 * property, not the class, so a second copy of the core in `node_modules` still passes.
 * A value it resolved with by mistake is closed when it has `close()` (no leaked pages).
 */
export async function expectRenderError(promise: Promise<unknown>, code: ErrorCode): Promise<CodedError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    expect(error, `expected a RenderError ${code}, got ${String(error)}`).toMatchObject({ code });
    return error as CodedError;
  }
  const closable = value as { close?: () => unknown } | null | undefined;
  if (closable && typeof closable.close === "function") await Promise.resolve(closable.close()).catch(() => undefined);
  throw new Error(`expected a rejection with RenderError ${code}, but the call resolved`);
}

/** Reads a stream to the end. */
export async function readAll(body: Readable | AsyncIterable<Uint8Array | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
