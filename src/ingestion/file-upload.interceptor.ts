/**
 * Reads one multipart file (field `file`) into memory for the import routes, within the size
 * limit: a larger file is refused with 413 before or while it arrives, never buffered whole.
 */
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { Observable } from 'rxjs';
import { IMPORT_LIMITS } from '../shared/contracts/knowledge-import';
import { ImportError } from './ingestion.errors';

const LIMIT_TEXT = `${IMPORT_LIMITS.fileBytes / (1024 * 1024)} MB`;

@Injectable()
export class FileUploadInterceptor implements NestInterceptor {
  private readonly read = multer({ storage: multer.memoryStorage(), limits: { fileSize: IMPORT_LIMITS.fileBytes, files: 1, fields: 20, parts: 21 } }).single('file');

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    if (!req.is('multipart/form-data')) throw ImportError.unsupported('Send the file as multipart/form-data, in the field "file"');
    // The multipart overhead is a few hundred bytes: a body much larger than the limit is refused unread.
    if (Number(req.headers['content-length'] ?? 0) > IMPORT_LIMITS.fileBytes + 64 * 1024) {
      // Read and drop what is still arriving, so the client gets the answer instead of a reset.
      req.resume();
      throw tooLarge();
    }
    await new Promise<void>((resolve, reject) => {
      this.read(req, res, (error: unknown) => (error ? reject(refusalOf(error)) : resolve()));
    });
    const file = (req as Request & { file?: Express.Multer.File }).file;
    if (!file) throw ImportError.invalid('Send the file in the multipart field "file"');
    if (file.size === 0) throw ImportError.invalid(`"${file.originalname}" is empty`);
    return next.handle();
  }
}

const tooLarge = () => ImportError.tooLarge(`The file is larger than ${LIMIT_TEXT}, the most one import takes`);

function refusalOf(error: unknown): ImportError {
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') return tooLarge();
    if (error.code === 'LIMIT_UNEXPECTED_FILE') return ImportError.invalid('Send one file, in the multipart field "file"');
    return ImportError.invalid(`The upload could not be read: ${error.message}`);
  }
  return ImportError.invalid('The upload could not be read: the multipart body is malformed');
}
