import { Body, Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { SecondFactorProof } from './second-factor/second-factor.service';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { Contract } from '../common/contract';
import {
  AnyMeResponseSchema,
  AuthStatsSchema,
  CheckMethodsResponseSchema,
  EmailRequestSchema,
  LogoutResponseSchema,
  PasswordLoginSchema,
  RequestOtpResponseSchema,
  SECOND_FACTOR_PROMPTS,
  SecondFactorCodeSchema,
  SessionResponseSchema,
  SignInResponseSchema,
  VerifyOtpSchema,
} from '../shared/contracts/auth';
import { AuthService, AuthStats, publicUser, SignedIn } from './auth.service';
import { clearedSessionCookie, sessionCookie } from './cookies';
import { CurrentAdmin } from './current-admin.decorator';
import { Audit } from '../audit/audit.decorator';
import { ACCESS } from '../shared/contracts/roles';
import { Public, SessionStages } from './public.decorator';
import { Roles } from './roles.decorator';
import { clientInfo, RequestAuthenticator } from './request-authenticator';
import type { AdminAuth, IssuedSession } from './session.service';

/**
 * The auth API. Success bodies carry `success`, `data`, and the
 * `message` / `user` / `methods` fields the console reads; errors are the usual envelope
 * (403 'Email not authorized', 401 bad credentials or no session, 429 with Retry-After).
 * An admin with a second factor is answered `secondFactor: 'totp'` (no `user`) by the password and
 * code sign-ins, and finishes with verify-totp; one who must set one up first, `secondFactor: 'enrol'`.
 */
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  @Public()
  @Post('check-methods')
  @Audit(false)
  @Contract({ summary: 'Which sign-in methods an email may use', body: EmailRequestSchema, response: CheckMethodsResponseSchema, status: 200, errors: [403, 429] })
  async checkMethods(@Body() body: z.output<typeof EmailRequestSchema>, @Req() req: Request) {
    const methods = await this.auth.checkMethods(body.email, clientInfo(req));
    return { success: true, message: 'Email authorized', methods, data: { methods } };
  }

  @Public()
  @Post('login-password')
  @Audit(false)
  @Contract({ summary: 'Sign in with a password (sets the session cookie)', body: PasswordLoginSchema, response: SignInResponseSchema, status: 200, errors: [401, 403, 429] })
  async loginPassword(@Body() body: z.output<typeof PasswordLoginSchema>, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.loginWithPassword(body.email, body.password, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Public()
  @Post('request-otp')
  @Audit(false)
  @Contract({ summary: 'Mail a 6-digit sign-in code', body: EmailRequestSchema, response: RequestOtpResponseSchema, status: 200, errors: [403, 429] })
  async requestOtp(@Body() body: z.output<typeof EmailRequestSchema>, @Req() req: Request) {
    const { expiresAt } = await this.auth.requestOtp(body.email, clientInfo(req));
    return { success: true, message: 'Verification code sent to your email', data: { expiresAt: new Date(expiresAt).toISOString() } };
  }

  @Public()
  @Post('verify-otp')
  @Audit(false)
  @Contract({ summary: 'Sign in with the mailed code (sets the session cookie)', body: VerifyOtpSchema, response: SignInResponseSchema, status: 200, errors: [401, 403, 429] })
  async verifyOtp(@Body() body: z.output<typeof VerifyOtpSchema>, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.verifyOtp(body.email, body.otp, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Post('verify-totp')
  @SessionStages('totp')
  @Roles(...ACCESS.signedIn)
  @Audit(false)
  @Contract({
    summary: 'Second sign-in step: the authenticator code, or a recovery code (sets the full session cookie)',
    description: 'Needs the cookie of a sign-in answered `secondFactor: totp`. Wrong, stale and replayed codes are 401 and count in the sign-in throttling.',
    body: SecondFactorCodeSchema,
    response: SessionResponseSchema,
    status: 200,
    errors: [401, 429],
  })
  async verifyTotp(@CurrentAdmin() admin: AdminAuth, @Body() body: SecondFactorProof, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.verifySecondFactor(admin, body, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Get('me')
  @SessionStages('full', 'totp', 'enrol')
  @Roles(...ACCESS.signedIn)
  @Contract({ summary: 'The signed-in admin (or the sign-in step still to go)', response: AnyMeResponseSchema, errors: [401] })
  me(@CurrentAdmin() admin: AdminAuth) {
    const user = publicUser(admin.user);
    const expiresAt = new Date(admin.session.expiresAt).toISOString();
    const stage = admin.session.stage;
    if (stage !== 'full') return { success: true, secondFactor: stage, data: { user, secondFactor: stage, expiresAt } };
    return { success: true, user, data: { user, expiresAt } };
  }

  @Post('refresh')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.refresh')
  @Contract({ summary: 'Renew the session (a new cookie)', response: SessionResponseSchema, status: 200, errors: [401] })
  async refresh(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.refresh(admin, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Session refreshed');
  }

  @Post('logout')
  @SessionStages('full', 'totp', 'enrol')
  @Roles(...ACCESS.signedIn)
  @Audit('auth.sign-out')
  @Contract({ summary: 'End the session (clears the cookie)', response: LogoutResponseSchema, status: 200, errors: [401] })
  async logout(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    await this.auth.logout(admin);
    res.setHeader('Set-Cookie', clearedSessionCookie(this.authenticator.secureCookie(req)));
    return { success: true, message: 'Logged out', data: null };
  }

  @Get('stats')
  @Roles(...ACCESS.team)
  @Contract({ summary: 'Sign-in figures: admins, active sessions, sign-ins and failures of the last day', data: AuthStatsSchema, errors: [401] })
  async stats(): Promise<{ success: true; data: AuthStats }> {
    return { success: true, data: await this.auth.stats() };
  }

  private startSession(req: Request, res: Response, signedIn: SignedIn, message: string) {
    const { issued, user } = signedIn;
    setSessionCookie(req, res, issued, this.authenticator);
    const expiresAt = new Date(issued.session.expiresAt).toISOString();
    const stage = issued.session.stage;
    if (stage !== 'full') return { success: true, message: SECOND_FACTOR_PROMPTS[stage], secondFactor: stage, data: { secondFactor: stage, expiresAt } };
    return { success: true, message, user, data: { user, expiresAt } };
  }
}

/** Sets the cookie of a new session (as long-lived as the session) and keeps the answer out of caches. */
export function setSessionCookie(req: Request, res: Response, issued: IssuedSession, authenticator: RequestAuthenticator): void {
  res.setHeader('Set-Cookie', sessionCookie(issued.token, issued.session.expiresAt - issued.session.createdAt, authenticator.secureCookie(req)));
  res.setHeader('Cache-Control', 'no-store');
}
