import { type ByteRange, RenderError, type StoredObject } from "@renderkit/core";
import type { AppContext } from "../http/context.js";
import type { RenderRecord } from "../state/records.js";

/** Seconds a redirect's presigned address stays valid. */
export const SIGNED_URL_SECONDS = 3_600;

/** A stored render found at a server address. */
export interface FoundRender {
  /** Size, type and dates (its body is already closed). */
  head: StoredObject;
  /** Reads the bytes, or a range of them. */
  read(range?: ByteRange): Promise<StoredObject | undefined>;
  /** A fresh presigned address when the object's storage signs them (S3); else undefined. */
  signedUrl(): Promise<string | undefined>;
}

/**
 * The render at server address `<key>`: in the server's storage (renders and side renders), or
 * the main file of a render kept in its project's bucket (`use_s3`), found through its record.
 * Undefined when missing or expired; storage failures propagate (a 5xx, not a 404).
 */
export async function findRender(ctx: AppContext, key: string): Promise<FoundRender | undefined> {
  const guard = <T>(work: Promise<T>) => unavailableOnFailure(ctx, key, work);
  const found = await guard(findNow(ctx, key));
  return found && { head: found.head, read: (range) => guard(found.read(range)), signedUrl: () => guard(found.signedUrl()) };
}

/**
 * A storage that fails (S3 unreachable, access refused, a missing bucket) is the server's
 * problem: 503 with a generic message, the cause in the log; never the client's 4xx.
 */
async function unavailableOnFailure<T>(ctx: AppContext, key: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RenderError) throw error;
    ctx.logger.error("reading a render from storage failed", { key, error: String(error) });
    throw new RenderError("ServiceUnavailable", "The render storage is unavailable; retry shortly", {
      cause: error,
      retryable: true,
    });
  }
}

async function findNow(ctx: AppContext, key: string): Promise<FoundRender | undefined> {
  const head = await ctx.renderer.read(key, { start: 0, end: 0 });
  if (head) {
    head.body.destroy();
    return {
      head,
      read: (range) => ctx.renderer.read(key, range),
      signedUrl: () => ctx.renderer.signedUrl(key, SIGNED_URL_SECONDS),
    };
  }
  const renderId = key.slice(0, key.lastIndexOf("."));
  const record = await ctx.store.get(renderId);
  const located = record?.status === "succeeded" ? await ctx.destinations.locate(record) : undefined;
  if (!located) return undefined;
  const { storage, key: objectKey } = located;
  const object = await storage.get(objectKey, { start: 0, end: 0 });
  if (!object) return undefined;
  object.body.destroy();
  return {
    head: object,
    read: (range) => storage.get(objectKey, range),
    signedUrl: async () => storage.signedUrl?.(objectKey, SIGNED_URL_SECONDS),
  };
}

/** Reads a finished render wherever it is (render links): a project's bucket, or the server's storage. */
export async function readRender(ctx: AppContext, record: RenderRecord, range?: ByteRange): Promise<StoredObject> {
  const result = record.result;
  if (!result) throw new RenderError("EngineResponseNotOkError", "The render has no stored file");
  const located = await ctx.destinations.locate(record);
  const stored = await unavailableOnFailure(
    ctx,
    result.key,
    located ? located.storage.get(located.key, range) : ctx.renderer.read(result.key, range),
  );
  if (!stored) throw new RenderError("EngineResponseNotOkError", "The render is no longer stored");
  return stored;
}
