import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { META_EXPIRES_AT, readEpoch } from "./metadata.js";
import { isMissing, S3StorageError } from "./s3-error.js";

/** HeadObject requests in flight at once during a sweep. */
export const SWEEP_CONCURRENCY = 8;

/** Runs `work` over `items`, `limit` at a time; stops taking items at the first failure and rejects with it. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Deletes the objects under `prefix` whose `expiresAt` metadata is before `now`; resolves with
 * how many went. S3 cannot list metadata, so this costs one HeadObject per object: fine for a
 * few thousand renders, while a bucket lifecycle rule is the tool for large buckets.
 * The first failed request stops the sweep (the next one starts over).
 */
export async function sweepExpired(client: S3Client, bucket: string, prefix: string, now: number): Promise<number> {
  // NaN would compare false with every date and delete everything that has one.
  if (!Number.isFinite(now)) throw new RangeError(`S3Storage: sweep(now) needs epoch milliseconds, got ${String(now)}`);
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await client
      .send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }))
      .catch((error: unknown) => {
        throw new S3StorageError("ListObjectsV2", bucket, undefined, error);
      });
    const keys = (page.Contents ?? []).flatMap((entry) => (entry.Key ? [entry.Key] : []));
    await eachLimited(keys, SWEEP_CONCURRENCY, async (key) => {
      let expiresAt: number | undefined;
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        expiresAt = readEpoch(head.Metadata?.[META_EXPIRES_AT]);
      } catch (error) {
        if (isMissing(error)) return; // deleted since the listing
        throw new S3StorageError("HeadObject", bucket, key, error);
      }
      if (expiresAt === undefined || expiresAt >= now) return;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch((error: unknown) => {
        throw new S3StorageError("DeleteObject", bucket, key, error);
      });
      removed++;
    });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return removed;
}
