import { type ErrorCode, isRenderError, type Logger } from "@renderkit/core";
import { HTTPError } from "h3";

/** HTTP status of every error code (docs/api.md#errors). A `Record` so a new code cannot be forgotten. */
export const STATUS: Record<ErrorCode, number> = {
  InvalidOptions: 400,
  InvalidTtl: 400,
  InvalidQuery: 400,
  NoQuerySent: 400,
  NoUrlSupplied: 400,
  UrlWasNotAStringError: 400,
  InvalidURLExtensionError: 400,
  InvalidURLError: 400,
  URLDoesNotResolveError: 400,
  HTMLProcessError: 400,
  NoS3BucketConfigured: 400,
  NotConfirmed: 400,
  NoRenderIdProvided: 400,
  OptionNotAvailableOnPlan: 400,
  TokenlessRequestsNotEnabled: 400,
  NoApiKeySupplied: 401,
  ApiKeyWrongFormat: 401,
  ApiKeyNotFound: 401,
  UserNotFoundError: 401,
  ProjectNotFound: 401,
  ProjectNotEnabled: 401,
  NotActive: 401,
  NoPlan: 401,
  TokenNotMatchedError: 401,
  RateLimitExceededError: 429,
  TrialUsageReached: 429,
  RenderTimeoutError: 500,
  TimedOutError: 500,
  EngineResponseNotOkError: 500,
  EngineAsyncResponseNotOkError: 500,
  ServiceUnavailable: 503,
  // The caller's own proxy (`proxy` option) could not be reached or refused the page: a bad gateway
  // upstream of us, not a fault of this server (500) nor something a retry of the same request here fixes.
  ProxyError: 502,
  // The caller's own upload address or S3 endpoint could not be reached or failed (5xx): as with
  // the proxy, a bad gateway on the caller's side, which a retry here does not fix.
  DestinationUnavailable: 502,
};

/** Errors that are not render errors but still need a status: routing, body parsing. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Codes for answers no spec code fits (ours, like `ServiceUnavailable`): every error body carries
 * a code, so clients can branch on it rather than on the message.
 */
export const GENERIC_CODES: Readonly<Record<number, string>> = {
  400: "BadRequest",
  404: "NotFound",
  405: "MethodNotAllowed",
  413: "PayloadTooLarge",
  416: "RangeNotSatisfiable",
  431: "HeadersTooLarge",
  500: "InternalError",
  503: "ServiceUnavailable",
};

/**
 * `{ error: { message, code }, requestId }`: the one error body of the API. Messages often repeat
 * the caller's text (an option's name, a path): `nosniff` keeps a browser from reading the body
 * as anything but JSON.
 */
export function errorResponse(
  status: number,
  message: string,
  code: string | undefined,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  const body = JSON.stringify({ error: { message, code: code ?? GENERIC_CODES[status] ?? "Error" }, requestId });
  return new Response(body, {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      "x-request-id": requestId,
      ...headers,
    },
  });
}

/** Turns anything thrown by a handler into the API's error answer; unknown errors are logged, not shown. */
export function toErrorResponse(error: unknown, requestId: string, logger: Logger): Response {
  if (isRenderError(error)) {
    const status = STATUS[error.code] ?? 500;
    const headers: Record<string, string> = status === 503 ? { "retry-after": "5" } : {};
    const retryAfter = error.details?.retryAfter;
    if (typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
    if (status >= 500) logger.warn("request failed", { requestId, code: error.code, reason: error.message });
    return errorResponse(status, error.message, error.code, requestId, headers);
  }
  if (error instanceof HttpProblem) return errorResponse(error.status, error.message, error.code, requestId, error.headers);
  // Only h3's own errors speak for the client (an S3 error's status is the bucket's, not the request's).
  const status = error instanceof HTTPError ? error.status : undefined;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const message = status === 404 ? "No such route" : status === 405 ? "Method not allowed" : "Bad request";
    return errorResponse(status, message, undefined, requestId);
  }
  logger.error("unexpected error", { requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return errorResponse(500, "Internal server error, try again later", undefined, requestId);
}
