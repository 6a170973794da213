/** What the SDK puts on its errors (service exceptions and network failures alike). */
interface SdkErrorShape {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

/** A failed S3 request: which operation, which object, what the service or network said. */
export class S3StorageError extends Error {
  /** SDK command name without `Command` (`PutObject`, `GetObject`...). */
  readonly operation: string;
  /** Object key inside the bucket (prefix included), when the operation had one. */
  readonly key: string | undefined;
  /** HTTP status of the service's answer; absent when no answer came (network, timeout). */
  readonly status: number | undefined;

  constructor(operation: string, bucket: string, key: string | undefined, cause: unknown) {
    const error = (cause ?? {}) as SdkErrorShape;
    const status = error.$metadata?.httpStatusCode;
    const attempts = error.$metadata?.attempts;
    const what = [error.name && error.name !== "Error" ? error.name : error.code, error.message].filter(Boolean).join(": ");
    const target = key === undefined ? `bucket "${bucket}"` : `"${key}" in bucket "${bucket}"`;
    const tries = attempts && attempts > 1 ? ` after ${attempts} attempts` : "";
    super(`S3 ${operation} of ${target} failed${tries}: ${what || String(cause)}`, { cause });
    this.name = "S3StorageError";
    this.operation = operation;
    this.key = key;
    this.status = status;
  }
}

/** True for the SDK's "no such object" answers (GetObject `NoSuchKey`, HeadObject `NotFound`). */
export function isMissing(error: unknown): boolean {
  const name = (error as SdkErrorShape | undefined)?.name;
  return name === "NoSuchKey" || name === "NotFound";
}
