import type { S3Config } from "../config/types.js";
import { S3_NETWORK_CODES as NETWORK } from "../renderer/s3-error-code.js";

export { s3ErrorCode } from "../renderer/s3-error-code.js";

/** What to do about an error code, naming the settings at `where` (`storage`, `projects[0].s3`). */
export function s3Fix(code: string, s3: S3Config, where: string, needs: string): string {
  const credentials = `${where}.accessKeyId and ${where}.secretAccessKey`;
  if (code === "NoSuchBucket")
    return `create the bucket ${s3.bucket}${s3.endpoint ? ` at ${s3.endpoint}` : ""}, or fix ${where}.bucket`;
  if (["AccessDenied", "Forbidden", "AllAccessDisabled"].includes(code))
    return `grant these credentials ${needs} on ${s3.bucket}/*`;
  if (["InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken"].includes(code)) {
    return `correct ${credentials} (when unset: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`;
  }
  if (code === "CredentialsProviderError")
    return `set ${credentials}, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or an instance role`;
  if (["PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException"].includes(code)) {
    return `set ${where}.region to the region of the bucket ${s3.bucket}`;
  }
  if (NETWORK.has(code)) return `check that ${s3.endpoint ?? "AWS S3"} is reachable from this machine, or fix ${where}.endpoint`;
  return `check ${where} (bucket, region, endpoint, forcePathStyle, credentials)`;
}
