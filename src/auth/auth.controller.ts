import { Body, Controller, Get, HttpCode, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuthService, AuthStats, publicUser, SignedIn } from './auth.service';
import { readEmail, readOtp, readPassword } from './auth-request.validator';
import { clearedSessionCookie, sessionCookie } from './cookies';
import { CurrentAdmin } from './current-admin.decorator';
import { Public } from './public.decorator';
import { clientInfo, RequestAuthenticator } from './request-authenticator';
import { RetryAfterInterceptor } from './retry-after.interceptor';
import type { AdminAuth } from './session.service';
import { SESSION_TTL_MS } from './session.service';

/**
 * The auth API of product-spec section 7. Success bodies carry `success`, `data`, and the
 * `message` / `user` / `methods` fields the spec names; errors are the usual envelope
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
  @HttpCode(200)
  async checkMethods(@Body() body: unknown, @Req() req: Request) {
    const methods = await this.auth.checkMethods(readEmail(body), clientInfo(req));
    return { success: true, message: 'Email authorized', methods, data: { methods } };
  }

  @Public()
  @Post('login-password')
  @HttpCode(200)
  async loginPassword(@Body() body: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.loginWithPassword(readEmail(body), readPassword(body), clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Public()
  @Post('request-otp')
  @HttpCode(200)
  async requestOtp(@Body() body: unknown, @Req() req: Request) {
    const { expiresAt } = await this.auth.requestOtp(readEmail(body), clientInfo(req));
    return { success: true, message: 'Verification code sent to your email', data: { expiresAt: new Date(expiresAt).toISOString() } };
  }

  @Public()
  @Post('verify-otp')
  @HttpCode(200)
  async verifyOtp(@Body() body: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const email = readEmail(body);
    const signedIn = await this.auth.verifyOtp(email, readOtp(body), clientInfo(req));
    return this.startSession(req, res, signedIn, 'Login successful');
  }

  @Get('me')
  me(@CurrentAdmin() admin: AdminAuth) {
    const user = publicUser(admin.user);
    return { success: true, user, data: { user, expiresAt: new Date(admin.session.expiresAt).toISOString() } };
  }

  @Post('refresh')
  @HttpCode(200)
  async refresh(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const signedIn = await this.auth.refresh(admin, clientInfo(req));
    return this.startSession(req, res, signedIn, 'Session refreshed');
  }

  @Post('logout')
  @HttpCode(200)
  async logout(@CurrentAdmin() admin: AdminAuth, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    await this.auth.logout(admin);
    res.setHeader('Set-Cookie', clearedSessionCookie(this.authenticator.secureCookie(req)));
    return { success: true, message: 'Logged out', data: null };
  }

  @Get('stats')
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
