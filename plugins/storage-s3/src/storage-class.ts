import { StorageClass } from "@aws-sdk/client-s3";

/** Storage classes S3 knows (the SDK's list, so new tiers arrive with SDK updates). */
export const STORAGE_CLASSES: readonly StorageClass[] = Object.values(StorageClass);

/**
 * The S3 `StorageClass` for `value` (`standard_ia` → `STANDARD_IA`); `undefined` keeps the
 * bucket's default. Throws a `RangeError` for a class S3 does not know, before anything is sent.
 * Archive tiers (`GLACIER`, `DEEP_ARCHIVE`) are accepted as asked, but `get` cannot read such an
 * object until it is restored.
 */
export function storageClass(value: string | undefined): StorageClass | undefined {
  if (value === undefined || value === "") return undefined;
  const upper = String(value).toUpperCase();
  const known = STORAGE_CLASSES.find((name) => name === upper);
  if (!known) {
    throw new RangeError(
      `S3Storage: unknown storage class ${JSON.stringify(String(value)).slice(0, 40)} (one of ${STORAGE_CLASSES.join(", ")})`,
    );
  }
  return known;
}
