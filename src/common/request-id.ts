import { randomUUID } from 'node:crypto';
import { withLogFields } from './log-context';
import type { NextFunction, Request, Response } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** Gives every HTTP request an id (kept from X-Request-Id when it is safe) for logs and errors. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.header('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
  (req as Request & { requestId: string }).requestId = id;
  res.setHeader('X-Request-Id', id);
  // Log lines written while this request is handled carry its id.
  withLogFields({ requestId: id }, next);
}

export function requestIdOf(req: Request): string {
  return (req as Request & { requestId?: string }).requestId ?? randomUUID();
}
