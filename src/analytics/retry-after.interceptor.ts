import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, Observable, throwError } from 'rxjs';
import { AppError } from '../common/app-error';

/** Adds `Retry-After` (seconds) to a 429 that says how long to wait; the global filter writes the envelope. */
@Injectable()
export class RetryAfterInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const seconds = error instanceof AppError && error.code === 'rate_limited' ? error.details?.retryAfterSeconds : undefined;
        if (typeof seconds === 'number') context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(seconds));
        return throwError(() => error);
      }),
    );
  }
}
