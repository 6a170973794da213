/**
 * Error codes of the render API (spec "Errors") plus ours: `ServiceUnavailable` (docs/api.md#decisions),
 * `ProxyError` (the `proxy` option's proxy could not be reached or refused to carry the page) and
 * `DestinationUnavailable` (an address the caller chose to store the render at, such as a presigned
 * upload address, could not be reached or failed: the caller's side, not this server's).
 */
export const ERROR_CODES = [
  "NoApiKeySupplied",
  "UserNotFoundError",
  "ApiKeyNotFound",
  "ProjectNotFound",
  "ProjectNotEnabled",
  "NoPlan",
  "NotConfirmed",
  "NotActive",
  "OptionNotAvailableOnPlan",
  "InvalidOptions",
  "InvalidTtl",
  "NoS3BucketConfigured",
  "RateLimitExceededError",
  "TrialUsageReached",
  "HTMLProcessError",
  "InvalidQuery",
  "NoUrlSupplied",
  "UrlWasNotAStringError",
  "InvalidURLExtensionError",
  "InvalidURLError",
  "URLDoesNotResolveError",
  "RenderTimeoutError",
  "TokenlessRequestsNotEnabled",
  "NoQuerySent",
  "TokenNotMatchedError",
  "EngineResponseNotOkError",
  "EngineAsyncResponseNotOkError",
  "TimedOutError",
  "NoRenderIdProvided",
  "ApiKeyWrongFormat",
  "ServiceUnavailable",
  "ProxyError",
  "DestinationUnavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface RenderErrorOptions {
  cause?: unknown;
  /** Extra machine-readable detail (for example the offending option). Never secrets. */
  details?: Record<string, unknown>;
  /** True when another attempt may succeed (engine crash, stall). */
  retryable?: boolean;
}

/** The one error type the core throws. `code` is stable; `message` is for humans. */
export class RenderError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: RenderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RenderError";
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  /** Serialisable form (what the server puts under `error`). */
  toJSON(): { message: string; code: ErrorCode } {
    return { message: this.message, code: this.code };
  }
}

export function isRenderError(value: unknown): value is RenderError {
  return value instanceof RenderError;
}

/** Wraps anything thrown into a RenderError, keeping RenderErrors as they are. */
export function toRenderError(value: unknown, fallback: ErrorCode = "EngineResponseNotOkError"): RenderError {
  if (value instanceof RenderError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new RenderError(fallback, `Rendering failed: ${message}`, { cause: value });
}
