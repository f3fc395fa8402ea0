import { ArgumentsHost, BadRequestException, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { describeBytes, type ErrorCode, type ErrorEnvelope } from '../shared/contracts/http';
import { AppError } from './app-error';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './database-unavailable';
import { requestIdOf } from './request-id';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** Messages for errors raised below our code (body parser, router) that callers should see. */
function describeLowLevel(error: { type?: string; status?: number; limit?: unknown; length?: unknown }): string | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return 'The request body is not valid JSON.';
    case 'entity.too.large': {
      const size = (bytes: unknown) => (typeof bytes === 'number' && Number.isFinite(bytes) ? describeBytes(bytes) : undefined);
      const limit = size(error.limit);
      const length = size(error.length);
      if (!limit) return 'The request body is too large.';
      return `The request body is too large${length ? ` (${length})` : ''}: at most ${limit} can be sent at once.`;
    }
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return 'The request body uses an unsupported encoding.';
    default:
      return undefined;
  }
}

/** Postgres SQLSTATEs for text it cannot store: a NUL (U+0000) or a byte sequence invalid in UTF-8. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * True for a database error caused by the request's own text (Postgres refuses U+0000 in any text
 * value, where SQLite stores it): the caller's input, so a 400, not a 500.
 */
function isUnstorableText(exception: unknown): boolean {
  const error = exception as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = error?.driverError?.code ?? error?.code;
  return typeof code === 'string' && UNSTORABLE_TEXT.has(code);
}

/** Seconds to wait that an AppError carries (`details.retryAfterSeconds`): the Retry-After header and `error.retryAfter`. */
export function retryAfterOf(exception: unknown): number | undefined {
  const seconds = exception instanceof AppError ? exception.details?.retryAfterSeconds : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : undefined;
}

/**
 * Turns every error into the envelope `{success: false, error: {code, message}, requestId}`. A 500 is logged with its request
 * id and answered with a generic message: no stack, no SQL, no internals.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const requestId = requestIdOf(req);
    const { status, code, message } = this.classify(exception);
    const retryAfter = retryAfterOf(exception);
    if (code === 'database_unavailable') {
      // One line per request while the database is down (no stack: it says nothing more).
      this.logger.warn(`${req.method} ${req.path} failed [${requestId}]: database unavailable: ${exception instanceof Error ? exception.message : String(exception)}`);
    } else if (status >= 500 && exception instanceof AppError) {
      // An expected failure we described ourselves (provider down, timeout): one line, no stack.
      this.logger.warn(`${req.method} ${req.path} failed [${requestId}]: ${code}: ${message}`);
    } else if (status >= 500) {
      this.logger.error(`${req.method} ${req.path} failed [${requestId}]`, exception instanceof Error ? exception.stack : String(exception));
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    const body: ErrorEnvelope = { success: false, error: { code, message, ...(retryAfter !== undefined ? { retryAfter } : {}) }, requestId };
    res.status(status).json(body);
  }

  private classify(exception: unknown): { status: number; code: ErrorCode; message: string } {
    if (exception instanceof AppError) {
      return { status: exception.status, code: exception.code, message: exception.message };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
      const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
      // Nest turns the body parser's SyntaxError into a 400 carrying the parser's own wording.
      if (status === 400 && /JSON/.test(message) && exception instanceof BadRequestException) {
        return { status, code: 'validation_failed', message: 'The request body is not valid JSON.' };
      }
      if (status === 404 && /^Cannot (GET|POST|PUT|DELETE|PATCH)/.test(message)) {
        return { status, code: 'not_found', message: 'No such route.' };
      }
      return { status, code: CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed'), message };
    }
    if (isDatabaseUnavailable(exception)) {
      return { status: 503, code: 'database_unavailable', message: DATABASE_UNAVAILABLE_MESSAGE };
    }
    if (isUnstorableText(exception)) {
      return { status: 400, code: 'validation_failed', message: 'The request contains a character that cannot be stored (U+0000, NUL).' };
    }
    const lowLevel = exception as { type?: string; status?: number; statusCode?: number };
    const status = lowLevel?.status ?? lowLevel?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return {
        status,
        code: CODE_BY_STATUS[status] ?? 'validation_failed',
        message: describeLowLevel(lowLevel) ?? 'The request could not be processed.',
      };
    }
    return { status: 500, code: 'internal_error', message: 'Something went wrong on our side' };
  }
}
