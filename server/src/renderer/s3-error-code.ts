/**
 * The SDK's error code behind a failed S3 request, read from the error's shape (the storage
 * plugin is loaded on first use, so its `S3StorageError` class is not imported here).
 */

/** Codes that mean the endpoint was not reached at all. */
export const S3_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "TimeoutError",
]);

/** Codes that mean the bucket is not there for these credentials: missing, refused, or elsewhere. */
export const S3_REFUSED_CODES: ReadonlySet<string> = new Set([
  "NoSuchBucket",
  "AccessDenied",
  "Forbidden",
  "AllAccessDisabled",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "InvalidToken",
  "ExpiredToken",
  "CredentialsProviderError",
  "PermanentRedirect",
  "AuthorizationHeaderMalformed",
  "IllegalLocationConstraintException",
  "InvalidBucketName",
]);

/** The SDK's error code behind a storage error: `NoSuchBucket`, `AccessDenied`, `ECONNREFUSED`... */
export function s3ErrorCode(error: unknown): string {
  const wrapped = (error as { name?: unknown } | undefined)?.name === "S3StorageError";
  const cause = (wrapped ? (error as Error).cause : error) as { name?: string; code?: unknown } | undefined;
  // Network failures are plain Errors (or AggregateErrors) whose `code` is the errno name.
  if (typeof cause?.code === "string" && /^E[A-Z_]+$/.test(cause.code)) return cause.code;
  if (cause?.name && cause.name !== "Error" && cause.name !== "AggregateError") return cause.name;
  return typeof cause?.code === "string" ? cause.code : "unknown";
}
