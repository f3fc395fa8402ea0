/**
 * Reads one recording (multipart field `file`) into memory within VOICE_LIMITS.maxBytes: a larger
 * one is refused with 413 before or while it arrives, never buffered whole.
 */
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { Observable } from 'rxjs';
import { AppError } from '../common/app-error';
import { VOICE_LIMITS, VOICE_MESSAGES } from '../shared/contracts/speech';

@Injectable()
export class VoiceUploadInterceptor implements NestInterceptor {
  private readonly read = multer({ storage: multer.memoryStorage(), limits: { fileSize: VOICE_LIMITS.maxBytes, files: 1, fields: 5, parts: 6, fieldSize: 1024 } }).single('file');

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    if (!req.is('multipart/form-data')) {
      req.resume();
      throw new AppError('unsupported_media_type', VOICE_MESSAGES.notMultipart);
    }
    // The multipart overhead is a few hundred bytes: a body much larger than the limit is refused unread.
    if (Number(req.headers['content-length'] ?? 0) > VOICE_LIMITS.maxBytes + 16 * 1024) {
      req.resume();
      throw new AppError('payload_too_large', VOICE_MESSAGES.tooLarge);
    }
    await new Promise<void>((resolve, reject) => {
      this.read(req, res, (error: unknown) => (error ? reject(refusalOf(error)) : resolve()));
    });
    const file = (req as Request & { file?: Express.Multer.File }).file;
    if (!file) throw new AppError('validation_failed', VOICE_MESSAGES.notMultipart);
    if (file.size === 0) throw new AppError('validation_failed', VOICE_MESSAGES.empty);
    return next.handle();
  }
}

function refusalOf(error: unknown): AppError {
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') return new AppError('payload_too_large', VOICE_MESSAGES.tooLarge);
    if (error.code === 'LIMIT_UNEXPECTED_FILE') return new AppError('validation_failed', 'Send one recording, in the multipart field "file".');
    return new AppError('validation_failed', `The upload could not be read: ${error.message}`);
  }
  return new AppError('validation_failed', 'The upload could not be read: the multipart body is malformed.');
}
