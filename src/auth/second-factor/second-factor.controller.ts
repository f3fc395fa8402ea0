import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Contract } from '../../common/contract';
import {
  DoneResponseSchema,
  RecoveryCodesSchema,
  SecondFactorCodeSchema,
  SecurityPolicySchema,
  SecurityPolicyUpdateSchema,
  TotpCodeSchema,
  TotpEnrolmentSchema,
  TotpStatusSchema,
  type SecondFactorCode,
  type SecurityPolicy,
  type TotpCode,
} from '../../shared/contracts/auth';
import { Audit } from '../../audit/audit.decorator';
import { ACCESS } from '../../shared/contracts/roles';
import { setSessionCookie } from '../auth.controller';
import { Roles } from '../roles.decorator';
import { CurrentAdmin } from '../current-admin.decorator';
import { SessionStages } from '../public.decorator';
import { clientInfo, RequestAuthenticator } from '../request-authenticator';
import type { AdminAuth } from '../session.service';
import { AccountSecurityService } from './account-security.service';
import type { SecondFactorProof } from './second-factor.service';

/**
 * The signed-in admin's second factor (any role; set-up also from a sign-in that must set one up
 * first), the team's sign-in policy, and an owner's reset of a member's second factor.
 */
@Controller('api')
export class SecondFactorController {
  constructor(
    private readonly account: AccountSecurityService,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  @Get('auth/totp')
  @SessionStages('full', 'enrol')
  @Roles(...ACCESS.signedIn)
  @Contract({ summary: 'Whether your two-factor authentication is on, and recovery codes left', data: TotpStatusSchema })
  async status(@CurrentAdmin() admin: AdminAuth) {
    return { success: true, data: await this.account.status(admin) };
  }

  @Post('auth/totp/enrol')
  @SessionStages('full', 'enrol')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.totp-setup-start')
  @Contract({
    summary: 'Start setting up an authenticator app: a new secret (text, otpauth URI, QR code)',
    description: 'The secret is not in force until POST /api/auth/totp/confirm accepts a code made with it. 409 when two-factor authentication is already on.',
    data: TotpEnrolmentSchema,
    status: 200,
    errors: [409],
  })
  async enrol(@CurrentAdmin() admin: AdminAuth, @Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    return { success: true, data: await this.account.enrol(admin) };
  }

  @Post('auth/totp/confirm')
  @SessionStages('full', 'enrol')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.totp-enable')
  @Contract({
    summary: 'Turn two-factor authentication on with a code from the app; answers the 10 recovery codes (shown once)',
    description: 'A member who had to set up a second factor is then fully signed in (a new session cookie).',
    body: TotpCodeSchema,
    data: RecoveryCodesSchema,
    status: 200,
    errors: [409, 429],
  })
  async confirm(@CurrentAdmin() admin: AdminAuth, @Body() body: TotpCode, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const confirmed = await this.account.confirm(admin, body.code, clientInfo(req));
    if (confirmed.issued) setSessionCookie(req, res, confirmed.issued, this.authenticator);
    res.setHeader('Cache-Control', 'no-store');
    return { success: true, message: 'Two-factor authentication is on', data: { recoveryCodes: confirmed.recoveryCodes, signedIn: Boolean(confirmed.issued), user: confirmed.user } };
  }

  @Post('auth/totp/recovery-codes')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.recovery-codes-renew')
  @Contract({ summary: 'Ten new recovery codes in place of the old ones (needs a code from the app)', body: TotpCodeSchema, data: RecoveryCodesSchema, status: 200, errors: [409, 429] })
  async recoveryCodes(@CurrentAdmin() admin: AdminAuth, @Body() body: TotpCode, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const recoveryCodes = await this.account.newRecoveryCodes(admin, body.code, clientInfo(req));
    res.setHeader('Cache-Control', 'no-store');
    return { success: true, data: { recoveryCodes, signedIn: false } };
  }

  @Delete('auth/totp')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.totp-disable')
  @Contract({
    summary: 'Turn your two-factor authentication off (needs a code from the app or a recovery code)',
    description: '403 while an owner requires a second factor of every member.',
    body: SecondFactorCodeSchema,
    response: DoneResponseSchema,
    status: 200,
    errors: [403, 409, 429],
  })
  async disable(@CurrentAdmin() admin: AdminAuth, @Body() body: SecondFactorCode & SecondFactorProof, @Req() req: Request) {
    await this.account.disable(admin, body, clientInfo(req));
    return { success: true, message: 'Two-factor authentication is off', data: null };
  }

  @Get('auth/security')
  @Roles(...ACCESS.signedIn)
  @Contract({ summary: "The team's sign-in policy", data: SecurityPolicySchema })
  async policy() {
    return { success: true, data: await this.account.getPolicy() };
  }

  @Put('auth/security')
  @Roles(...ACCESS.teamSecurity)
  @Audit('settings.sign-in-policy')
  @Contract({
    summary: "Change the team's sign-in policy (owners)",
    description: 'Requiring a second factor needs your own first (409); members without one can then only set one up.',
    body: SecurityPolicyUpdateSchema,
    data: SecurityPolicySchema,
    errors: [403, 409],
  })
  async setPolicy(@CurrentAdmin() admin: AdminAuth, @Body() body: SecurityPolicy) {
    return { success: true, data: await this.account.setPolicy(admin, body) };
  }

  @Delete('team/members/:id/totp')
  @HttpCode(200)
  @Roles(...ACCESS.teamSecurity)
  @Audit('member.totp-reset', { target: 'member' })
  @Contract({ summary: "Reset a member's two-factor authentication (owners); their sessions end", response: DoneResponseSchema, errors: [403, 404] })
  async reset(@CurrentAdmin() admin: AdminAuth, @Param('id') id: string) {
    await this.account.resetMember(admin, id);
    return { success: true, message: 'Two-factor authentication was reset', data: null };
  }
}
