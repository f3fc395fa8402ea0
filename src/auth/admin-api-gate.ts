import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../common/app-error';
import { requestIdOf } from '../common/request-id';
import type { ErrorEnvelope } from '../shared/contracts/http';
import { AuthedRequest, RequestAuthenticator } from './request-authenticator';

/** Paths that always need a session, whatever their controllers say. */
export const ADMIN_API_PATHS = /^\/api\/(knowledge|knowledge-gaps|conversations|config|analytics|budgets|team|audit|widgets)(\/|$)/;

/** The team routes an invitee uses before having a session: reading an invitation and accepting it. */
const INVITATION_LINK_ROUTES: Array<{ method: string; path: RegExp }> = [
  { method: 'GET', path: /^\/api\/team\/invitations\/[^/]+$/ },
  { method: 'POST', path: /^\/api\/team\/invitations\/[^/]+\/accept$/ },
];

export function needsSession(method: string, path: string): boolean {
  if (method === 'OPTIONS' || !ADMIN_API_PATHS.test(path)) return false;
  return !INVITATION_LINK_ROUTES.some((route) => route.method === method && route.path.test(path));
}

/**
 * Express middleware in front of the router for /api/knowledge, /api/knowledge-gaps,
 * /api/conversations, /api/config, /api/analytics, /api/budgets, /api/team (but the invitation
 * link's routes) and /api/audit:
 * no valid session, no answer (401, even for paths that do not exist, so nothing about the admin
 * API leaks), and no cross-origin state change (403). A second line behind the global guard: a
 * route there cannot be made public by mistake. Roles are the guard's business (it knows the route).
 */
@Injectable()
export class AdminApiGate {
  constructor(private readonly authenticator: RequestAuthenticator) {}

  readonly handler: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (!needsSession(req.method, req.path)) return next();
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
