/**
 * Errors the knowledge service throws. They are AppErrors, so the global filter maps them with
 * the shared codes: not_found -> 404, validation_failed -> 400, payload_too_large -> 413,
 * unsupported_media_type -> 415.
 */
import { AppError } from '../common/app-error';
import type { ErrorCode } from '../shared/contracts/http';

export type KnowledgeErrorCode = Extract<ErrorCode, 'not_found' | 'validation_failed' | 'payload_too_large' | 'unsupported_media_type'>;

export class KnowledgeError extends AppError {
  constructor(
    code: KnowledgeErrorCode,
    message: string,
    /** The input field at fault, for validation errors. */
    readonly field?: string,
  ) {
    super(code, message, field ? { field } : undefined);
    this.name = 'KnowledgeError';
  }

  static notFound(id: string): KnowledgeError {
    return new KnowledgeError('not_found', `Knowledge item ${String(id).slice(0, 60)} was not found`);
  }

  static invalid(field: string, message: string): KnowledgeError {
    return new KnowledgeError('validation_failed', message, field);
  }

  static tooLarge(field: string, message: string): KnowledgeError {
    return new KnowledgeError('payload_too_large', message, field);
  }

  static unsupportedType(field: string, message: string): KnowledgeError {
    return new KnowledgeError('unsupported_media_type', message, field);
  }
}
