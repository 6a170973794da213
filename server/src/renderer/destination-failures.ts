import { isRenderError, type Logger, RenderError, snakeName } from "@renderkit/core";
import { storeFailure } from "@renderkit/core/internal";
import { S3_NETWORK_CODES, S3_REFUSED_CODES, s3ErrorCode } from "./s3-error-code.js";

/**
 * What a caller is told when a render could not be stored where its options sent it (the
 * mappings of docs/api.md "Errors"). What the caller chose and got wrong is a 4xx naming the
 * option; an address of the caller's that failed is a 502 `DestinationUnavailable`; a failure of
 * the operator's bucket is the generic `storeFailure`. None is retried by the render loop (the
 * same upload would fail again), and no message names a host, port or bucket of the operator's.
 */

/** A failure of the caller's own upload address (`option`: `s3PresignedUrl`, `s3PresignedUrlHtml`...). */
export function uploadFailure(option: string, error: unknown): unknown {
  if (!isRenderError(error)) return error;
  const name = snakeName(option);
  const details = { option: name };
  const status = typeof error.details?.status === "number" ? error.details.status : undefined;
  if (status !== undefined && status >= 300 && status < 400) {
    return new RenderError(
      "InvalidOptions",
      `Option ${name}: the upload address answered HTTP ${status}, a redirect; a presigned address must take the PUT itself`,
      { details, cause: error },
    );
  }
  // 4xx: the address refused the PUT (an expired or wrong signature, a missing bucket); the
  // caller's to fix. 429 joins the 5xx: the caller's store is busy, not the request wrong.
  if (status !== undefined && status >= 400 && status < 500 && status !== 429) {
    return new RenderError("InvalidOptions", `Option ${name}: ${error.message}`, { details, cause: error });
  }
  if (error.code === "InvalidURLError") {
    return new RenderError("InvalidOptions", `Option ${name} is refused: ${error.message}`, { details, cause: error });
  }
  // 5xx and 429 answers, no answer at all (refused, reset, a name that no longer resolves to a
  // public address), or the upload's own time running out.
  if (["EngineResponseNotOkError", "URLDoesNotResolveError", "TimedOutError"].includes(error.code)) {
    return new RenderError("DestinationUnavailable", `Option ${name}: ${error.message}`, { details, cause: error });
  }
  return error;
}

/** Where a `use_s3` render was being stored, for `bucketFailure`. */
export interface BucketAttempt {
  renderId: string;
  projectId: string;
  /** The caller named the bucket (`s3_bucket`). */
  namedBucket: boolean;
  /** The caller chose the endpoint (`s3_endpoint`, another than the project's). */
  chosenEndpoint: boolean;
}

/**
 * A failed store into a project's bucket. A bucket that does not exist or refuses the project's
 * credentials is 400 `NoS3BucketConfigured` naming `s3_bucket` (or `use_s3` for the project's
 * own); an endpoint the caller chose that cannot be reached is 502 `DestinationUnavailable`; the
 * rest is the generic failure. The storage's own words go to the log only.
 */
export function bucketFailure(error: unknown, attempt: BucketAttempt, logger: Logger): unknown {
  if (isRenderError(error)) return error;
  const code = s3ErrorCode(error);
  const { renderId, projectId } = attempt;
  logger.error("storing a render in a project bucket failed", {
    renderId,
    projectId,
    code,
    error: error instanceof Error ? error.message : String(error),
  });
  if (S3_REFUSED_CODES.has(code)) {
    const option = attempt.namedBucket ? "s3_bucket" : "use_s3";
    const which = attempt.namedBucket ? "Option s3_bucket names a bucket that" : "Option use_s3: the project's bucket";
    return new RenderError("NoS3BucketConfigured", `${which} does not exist or refuses the project's credentials (${code})`, {
      details: { option },
      cause: error,
    });
  }
  if (attempt.chosenEndpoint && S3_NETWORK_CODES.has(code)) {
    return new RenderError("DestinationUnavailable", `Option s3_endpoint: the endpoint could not be reached (${code})`, {
      details: { option: "s3_endpoint" },
      cause: error,
    });
  }
  return storeFailure(renderId, error);
}
