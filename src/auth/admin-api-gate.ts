import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../common/app-error';
import { requestIdOf } from '../common/request-id';
import type { ErrorEnvelope } from '../shared/contracts/http';
import { AuthedRequest, RequestAuthenticator } from './request-authenticator';

/** Paths that always need an admin session, whatever their controllers say. */
export const ADMIN_API_PATHS = /^\/api\/(knowledge|knowledge-gaps|conversations|config|analytics)(\/|$)/;

/**
 * Express middleware in front of the router for /api/knowledge, /api/knowledge-gaps,
 * /api/conversations, /api/config and /api/analytics:
 * no valid session, no answer (401, even for paths that do not exist, so nothing about the admin
 * API leaks), and no cross-origin state change (403). A second line behind the global guard: a
 * route there cannot be made public by mistake.
 */
@Injectable()
export class AdminApiGate {
  constructor(private readonly authenticator: RequestAuthenticator) {}

  readonly handler: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' || !ADMIN_API_PATHS.test(req.path)) return next();
    const check = async () => {
      this.authenticator.assertSameOrigin(req);
      await this.authenticator.authenticate(req as AuthedRequest);
    };
    check().then(
      () => next(),
      (error: unknown) => {
        if (!(error instanceof AppError)) return next(error);
        const body: ErrorEnvelope = { success: false, error: { code: error.code, message: error.message }, requestId: requestIdOf(req) };
        res.status(error.status).json(body);
      },
    );
  };
}
