import type { PutObjectCommandInput } from "@aws-sdk/client-s3";
import type { StoredMeta } from "@renderkit/core";
import { META_CREATED_AT, META_EXPIRES_AT } from "./metadata.js";
import { storageClass } from "./storage-class.js";

/**
 * PutObject fields for `meta`, checked before anything is sent: content type, storage class
 * (upper-cased), `createdAt`/`expiresAt` as user metadata and the HTTP `Expires` header.
 */
export function putParams(bucket: string, key: string, meta: StoredMeta): PutObjectCommandInput {
  if (typeof meta?.contentType !== "string" || meta.contentType === "") {
    throw new TypeError("S3Storage: meta.contentType is required");
  }
  const { expiresAt } = meta;
  if (expiresAt !== undefined && (!Number.isFinite(expiresAt) || expiresAt < 0)) {
    throw new RangeError(`S3Storage: meta.expiresAt must be epoch milliseconds, got ${String(expiresAt)}`);
  }
  const metadata: Record<string, string> = { [META_CREATED_AT]: String(Date.now()) };
  if (expiresAt !== undefined) metadata[META_EXPIRES_AT] = String(Math.round(expiresAt));
  return {
    Bucket: bucket,
    Key: key,
    ContentType: meta.contentType,
    StorageClass: storageClass(meta.storageClass),
    Metadata: metadata,
    // Lets caches in front of the bucket (a CDN, browsers) drop the object when renderkit does.
    Expires: expiresAt === undefined ? undefined : new Date(expiresAt),
  };
}
