import { pipeline, type Readable, Transform, type TransformCallback } from "node:stream";
import type { PutObjectCommandInput, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { S3StorageError } from "./s3-error.js";

/** Parts uploaded at once: memory use is about `QUEUE_SIZE × partSize` per upload. */
const QUEUE_SIZE = 4;

/** Counts the bytes that pass (the stored size of a body whose length is unknown up front). */
class ByteCounter extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

/**
 * Streams `body` to `params.Key` with lib-storage's `Upload`: one PutObject when it fits in a
 * part, a multipart upload otherwise. A body that fails, or an upload that fails, stores
 * nothing: parts never completed are aborted, and the source is destroyed. Rejects with the
 * source's own error when the source failed (not with what the aborted upload said).
 */
export async function putStream(
  client: S3Client,
  params: PutObjectCommandInput,
  body: Readable,
  partSize: number,
): Promise<{ size: number }> {
  const counter = new ByteCounter();
  // A body that failed while this put waited its turn is already `errored`.
  let sourceError: unknown = body.errored ?? undefined;
  // Heard before the counter fails, so the rejection below names the source's error.
  body.once("error", (error) => {
    sourceError ??= error;
  });
  // pipeline destroys the counter with the source's error, so the upload's read of it fails.
  pipeline(body, counter, (error) => {
    if (error) sourceError ??= error;
  });
  const upload = new Upload({ client, params: { ...params, Body: counter }, partSize, queueSize: QUEUE_SIZE });
  try {
    await upload.done();
  } catch (error) {
    await upload.abort().catch(() => undefined);
    // Releases the source when the upload gave up first (network, refused): nothing will read it.
    counter.destroy();
    if (sourceError !== undefined) throw sourceError;
    throw new S3StorageError("Upload", params.Bucket ?? "", params.Key, error);
  }
  return { size: counter.bytes };
}
