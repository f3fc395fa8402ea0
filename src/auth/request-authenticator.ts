/**
 * The one place an HTTP request is checked: same-origin for state-changing /api requests, and the
 * session cookie for private ones. Used by the global guard and by the gate in front of the admin
 * API paths; the result is kept on the request, so a request is checked once.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/app-error';
import { clientAddressOf } from '../common/client-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { SessionStage } from './admin-session.entity';
import { AUTH_MESSAGES } from './auth.errors';
import { sessionTokenFrom } from './cookies';
import { isCrossOrigin } from './origin-check';
import { AdminAuth, ClientInfo, SessionService } from './session.service';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const FULL_ONLY: readonly SessionStage[] = ['full'];

export type AuthedRequest = Request & { adminAuth?: AdminAuth };

/** The client's IP (TRUST_PROXY decides whose X-Forwarded-For counts) and user agent. */
export function clientInfo(req: Request): ClientInfo {
  return { ip: clientAddressOf(req).ip, userAgent: req.header('user-agent') };
}

@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly sessions: SessionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** 403 for a state-changing /api request from another origin. */
  assertSameOrigin(req: Request): void {
    if (SAFE_METHODS.has(req.method) || !req.path.startsWith('/api/')) return;
    if (isCrossOrigin(req.headers, clientAddressOf(req), this.config.corsOrigins)) throw new AppError('forbidden', AUTH_MESSAGES.crossOrigin);
  }

  /**
   * The admin behind the session cookie, or 401. Only a full session counts, unless the route
   * names the second-factor stages it also serves (`stages`).
   */
  async authenticate(req: AuthedRequest, stages: readonly SessionStage[] = FULL_ONLY): Promise<AdminAuth> {
    if (req.adminAuth && stages.includes(req.adminAuth.session.stage)) return req.adminAuth;
    const auth = await this.sessions.validateAt(sessionTokenFrom(req.headers.cookie), stages);
    if (!auth) throw new AppError('unauthorized', stages.includes('full') ? AUTH_MESSAGES.notAuthenticated : AUTH_MESSAGES.signInStepExpired);
    req.adminAuth = auth;
    return auth;
  }

  /** Whether the session cookie should carry Secure: COOKIE_SECURE when set, else whether the request came over HTTPS. */
  secureCookie(req: Request): boolean {
    return this.config.cookieSecure ?? clientAddressOf(req).proto === 'https';
  }
}
