import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { SessionStage } from './admin-session.entity';
import { IS_PUBLIC, SESSION_STAGES } from './public.decorator';
import { AuthedRequest, RequestAuthenticator } from './request-authenticator';

/**
 * The global guard (APP_GUARD). HTTP: state-changing /api requests from another origin get 403;
 * routes not marked @Public() need a valid admin session (401 otherwise): a full one, unless the
 * route names the sign-in stages it serves (@SessionStages). Socket.IO: the public
 * chat namespace needs nothing, and the /admin namespace checks the session at the handshake
 * (see AdminEventsGateway), so message handlers pass here.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    this.authenticator.assertSameOrigin(req);
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const stages = this.reflector.getAllAndOverride<SessionStage[] | undefined>(SESSION_STAGES, [context.getHandler(), context.getClass()]);
    await this.authenticator.authenticate(req, stages);
    return true;
  }
}
