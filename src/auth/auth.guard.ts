import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../common/app-error';
import { roleAllows } from '../shared/contracts/roles';
import type { SessionStage } from './admin-session.entity';
import { IS_PUBLIC, SESSION_STAGES } from './public.decorator';
import { AuthedRequest, RequestAuthenticator } from './request-authenticator';
import { forbiddenMessage, rolesOf } from './roles.decorator';

/**
 * The global guard (APP_GUARD). HTTP: state-changing /api requests from another origin get 403;
 * routes not marked @Public() need a valid session (401 otherwise) of a member whose role the
 * route accepts (@Roles, by default owners and admins; 403 otherwise). Socket.IO: the public chat
 * namespace needs nothing, and the /admin namespace checks the session at the handshake (see
 * AdminEventsGateway), so message handlers pass here. A session still at a second-factor step
 * counts only on routes that name that stage (@SessionStages).
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
    const { user } = await this.authenticator.authenticate(req, stages);
    if (!roleAllows(user.role, rolesOf(this.reflector, context))) throw new AppError('forbidden', forbiddenMessage(user.role));
    return true;
  }
}
