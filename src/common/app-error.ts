/**
 * Errors the API reports to callers. Every error code maps to exactly one HTTP status here, so
 * the REST envelope, the SSE error frame and the socket's `chat:error` all agree.
 */
import type { ErrorCode } from '../shared/contracts/http';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  query_empty: 400,
  query_too_long: 413,
  unknown_vertical: 400,
  vertical_disabled: 400,
  jurisdiction_required: 400,
  unknown_jurisdiction: 400,
  unknown_language: 400,
  not_found: 404,
  unauthorized: 401,
  forbidden: 403,
  conflict: 409,
  /** Something that existed and is no longer usable (a used or expired invitation link). */
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** The visitor's tokens for today are spent (Retry-After: until 00:00 UTC). */
  quota_exhausted: 429,
  /** A monthly budget's hard cap is reached and its cap behaviour is "refuse". */
  budget_exhausted: 503,
  provider_error: 502,
  provider_rate_limited: 503,
  provider_timeout: 504,
  chat_timeout: 504,
  cancelled: 499,
  reply_interrupted: 503,
  server_restarting: 503,
  service_unavailable: 503,
  database_unavailable: 503,
  internal_error: 500,
};

export function statusForCode(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = statusForCode(code);
  }
}
