import { Body, Controller, Get, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { Contract } from '../common/contract';
import {
  AuthStatsSchema,
  CheckMethodsResponseSchema,
  EmailRequestSchema,
  LogoutResponseSchema,
  MeResponseSchema,
  PasswordLoginSchema,
  RequestOtpResponseSchema,
  SessionResponseSchema,
  VerifyOtpSchema,
} from '../shared/contracts/auth';
import { AuthService, AuthStats, publicUser, SignedIn } from './auth.service';
import { clearedSessionCookie, sessionCookie } from './cookies';
import { CurrentAdmin } from './current-admin.decorator';
import { Public } from './public.decorator';
import { clientInfo, RequestAuthenticator } from './request-authenticator';
import { RetryAfterInterceptor } from './retry-after.interceptor';
import type { AdminAuth } from './session.service';
import { SESSION_TTL_MS } from './session.service';

/**
 * The auth API. Success bodies carry `success`, `data`, and the
 * `message` / `user` / `methods` fields the console reads; errors are the usual envelope
 * (403 'Email not authorized', 401 bad credentials or no session, 429 with Retry-After).
 */
@Controller('api/auth')
@UseInterceptors(RetryAfterInterceptor)
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  @Public()
  @Post('check-methods')
  @Contract({ summary: 'Which sign-in methods an email may use', body: EmailRequestSchema, response: CheckMethodsResponseSchema, status: 200, errors: [403, 429] })
  async checkMethods(@Body() body: z.output<typeof EmailRequestSchema>, @Req() req: Request) {
    const methods = await this.auth.checkMethods(body.email, clientInfo(req));
    return { success: true, message: 'Email authorized', methods, data: { methods } };
  }

  @Public()
  @Post('login-password')
  @Contract({ summary: 'Sign in with a password (sets the session cookie)', body: PasswordLoginSchema, response: SessionResponseSchema, status: 200, errors: [401, 403, 429] })
  async loginPassword(@Body() body: z.output<typeof PasswordLoginSchema>, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.loginWithPassword(body.email, body.password, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Public()
  @Post('request-otp')
  @Contract({ summary: 'Mail a 6-digit sign-in code', body: EmailRequestSchema, response: RequestOtpResponseSchema, status: 200, errors: [403, 429] })
  async requestOtp(@Body() body: z.output<typeof EmailRequestSchema>, @Req() req: Request) {
    const { expiresAt } = await this.auth.requestOtp(body.email, clientInfo(req));
    return { success: true, message: 'Verification code sent to your email', data: { expiresAt: new Date(expiresAt).toISOString() } };
  }

  @Public()
  @Post('verify-otp')
  @Contract({ summary: 'Sign in with the mailed code (sets the session cookie)', body: VerifyOtpSchema, response: SessionResponseSchema, status: 200, errors: [401, 403, 429] })
  async verifyOtp(@Body() body: z.output<typeof VerifyOtpSchema>, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.verifyOtp(body.email, body.otp, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Get('me')
  @Contract({ summary: 'The signed-in admin', response: MeResponseSchema, errors: [401] })
  me(@CurrentAdmin() admin: AdminAuth) {
    const user = publicUser(admin.user);
    return { success: true, user, data: { user, expiresAt: new Date(admin.session.expiresAt).toISOString() } };
  }

  @Post('refresh')
  @Contract({ summary: 'Renew the session (a new cookie)', response: SessionResponseSchema, status: 200, errors: [401] })
  async refresh(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.refresh(admin, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Session refreshed');
  }

  @Post('logout')
  @Contract({ summary: 'End the session (clears the cookie)', response: LogoutResponseSchema, status: 200, errors: [401] })
  async logout(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    await this.auth.logout(admin);
    res.setHeader('Set-Cookie', clearedSessionCookie(this.authenticator.secureCookie(req)));
    return { success: true, message: 'Logged out', data: null };
  }

  @Get('stats')
  @Contract({ summary: 'Sign-in figures: admins, active sessions, sign-ins and failures of the last day', data: AuthStatsSchema, errors: [401] })
  async stats(): Promise<{ success: true; data: AuthStats }> {
    return { success: true, data: await this.auth.stats() };
  }

  private startSession(req: Request, res: Response, signedIn: SignedIn, message: string) {
    const { issued, user } = signedIn;
    res.setHeader('Set-Cookie', sessionCookie(issued.token, SESSION_TTL_MS, this.authenticator.secureCookie(req)));
    res.setHeader('Cache-Control', 'no-store');
    return { success: true, message, user, data: { user, expiresAt: new Date(issued.session.expiresAt).toISOString() } };
  }
}
