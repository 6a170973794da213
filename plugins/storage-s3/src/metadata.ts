/**
 * User metadata names (sent as `x-amz-meta-<name>`). Namespaced so that `sweep` never acts on
 * an `expires-at` some other tool wrote into a shared bucket; S3 lowercases them on the way back.
 */
export const META_EXPIRES_AT = "renderkit-expires-at";
export const META_CREATED_AT = "renderkit-created-at";

/** An epoch-ms metadata value, or `undefined` when absent or not a number. */
export function readEpoch(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,16}$/.test(value)) return undefined;
  return Number(value);
}
