/**
 * Why a file or a page could not be imported. AppErrors, so the global filter answers with the
 * shared codes: validation_failed -> 400, payload_too_large -> 413, unsupported_media_type -> 415.
 */
import { AppError } from '../common/app-error';
import type { ErrorCode } from '../shared/contracts/http';

export type ImportErrorCode = Extract<ErrorCode, 'validation_failed' | 'payload_too_large' | 'unsupported_media_type' | 'not_found' | 'conflict'>;

export class ImportError extends AppError {
  constructor(code: ImportErrorCode, message: string) {
    super(code, message);
    this.name = 'ImportError';
  }

  static invalid(message: string): ImportError {
    return new ImportError('validation_failed', message);
  }

  static tooLarge(message: string): ImportError {
    return new ImportError('payload_too_large', message);
  }

  static unsupported(message: string): ImportError {
    return new ImportError('unsupported_media_type', message);
  }
}
