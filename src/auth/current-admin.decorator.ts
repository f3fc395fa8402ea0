import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AuthedRequest } from './request-authenticator';
import type { AdminAuth } from './session.service';

/** The signed-in admin and session of a private route (set by the global guard). */
export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminAuth => {
  const auth = context.switchToHttp().getRequest<AuthedRequest>().adminAuth;
  if (!auth) throw new Error('CurrentAdmin used on a route without an admin session (is it @Public()?)');
  return auth;
});
