/**
 * Errors the knowledge service throws for callers to tell apart. `code` is the shared HTTP error
 * code (src/shared/contracts/http.ts), so the global exception filter maps it without knowing this
 * feature: not_found -> 404, validation_failed -> 400.
 */
import type { ErrorCode } from '../shared/contracts/http';

export type KnowledgeErrorCode = Extract<ErrorCode, 'not_found' | 'validation_failed'>;

export class KnowledgeError extends Error {
  constructor(
    readonly code: KnowledgeErrorCode,
    message: string,
    /** The input field at fault, for validation errors. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'KnowledgeError';
  }

  static notFound(id: string): KnowledgeError {
    return new KnowledgeError('not_found', `Knowledge item ${id} was not found`);
  }

  static invalid(field: string, message: string): KnowledgeError {
    return new KnowledgeError('validation_failed', message, field);
  }
}
