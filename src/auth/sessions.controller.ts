import { Controller, Delete, Get, HttpCode, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Audit } from '../audit/audit.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import { Roles } from './roles.decorator';
import { EndedSessionSchema, SessionInfoSchema, SessionListQuerySchema, type SessionListQuery } from '../shared/contracts/auth';
import { clearedSessionCookie } from './cookies';
import { CurrentAdmin } from './current-admin.decorator';
import { RequestAuthenticator } from './request-authenticator';
import { AccountSecurityService } from './second-factor/account-security.service';
import type { AdminAuth } from './session.service';

/**
 * Active sessions: every admin sees and ends their own; an owner sees (?scope=all) and ends
 * anyone's. An ended session's /admin sockets close on every server.
 */
@Controller('api/auth/sessions')
@Roles(...ACCESS.signedIn)
export class SessionsController {
  constructor(
    private readonly account: AccountSecurityService,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  @Get()
  @Contract({ summary: 'Active sessions: yours, or with scope=all everyone\'s (owners)', query: SessionListQuerySchema, data: [SessionInfoSchema], errors: [403] })
  async list(@CurrentAdmin() admin: AdminAuth, @Query() query: SessionListQuery) {
    return { success: true, data: await this.account.listSessions(admin, query.scope) };
  }

  @Delete(':id')
  @HttpCode(200)
  @Audit('session.end')
  @Contract({ summary: 'End a session (yours, or anyone\'s for owners); ending your own signs you out', data: EndedSessionSchema, errors: [404] })
  async end(@CurrentAdmin() admin: AdminAuth, @Param('id') id: string, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const { current } = await this.account.endSession(admin, id);
    if (current) res.setHeader('Set-Cookie', clearedSessionCookie(this.authenticator.secureCookie(req)));
    return { success: true, message: 'Session ended', data: { current } };
  }
}
