/**
 * The sign-in flows behind the auth API: which methods an email may use, password and code
 * sign-in (each creating a session and an audit row), refresh, logout and the stats. Sign-in
 * requests are rate limited per IP (SIGN_IN_IP_LIMIT per 15 minutes, all four endpoints together)
 * and per email (codes: 1 per 30 s and 10 per hour; passwords: 10 tries per 15 minutes; code
 * checks: 30 per 15 minutes; a successful sign-in clears the email's password / code-check count).
 */
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError } from '../common/app-error';
import { RATE_LIMITER, RateLimiter, RateLimitRule } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig, normalizeEmail, PASSWORD_MAX_LENGTH } from '../config/app-config';
import { AdminUser } from './admin-user.entity';
import { AdminUsersService } from './admin-users.service';
import { AUTH_MESSAGES, invalidCodeMessage, RateLimitedError } from './auth.errors';
import { Clock } from './clock';
import { OtpService } from './otp.service';
import { verifyPassword } from './passwords';
import { AdminAuth, ClientInfo, IssuedSession, SessionService } from './session.service';
import { SignInAuditService } from './sign-in-audit.service';

const MINUTE = 60_000;
export const SIGN_IN_RULES = {
  ipWindowMs: 15 * MINUTE,
  codeBurst: { limit: 1, windowMs: 30_000 },
  codeHourly: { limit: 10, windowMs: 60 * MINUTE },
  passwordPerEmail: { limit: 10, windowMs: 15 * MINUTE },
  codeChecksPerEmail: { limit: 30, windowMs: 15 * MINUTE },
} as const;

export interface LoginMethods {
  password: boolean;
  otp: boolean;
}

export interface PublicUser {
  name: string;
  email: string;
}

export interface SignedIn {
  user: PublicUser;
  issued: IssuedSession;
}

export interface AuthStats {
  admins: number;
  activeSessions: number;
  signIns24h: number;
  failedAttempts24h: number;
}

export function publicUser(user: AdminUser): PublicUser {
  return { name: user.name, email: user.email };
}

/** Rate-limit keys carry a hash, not the address, so Redis never holds the admin emails. */
function emailKey(email: string): string {
  return createHash('sha256').update(email).digest('hex').slice(0, 32);
}

@Injectable()
export class AuthService {
  constructor(
    private readonly users: AdminUsersService,
    private readonly sessions: SessionService,
    private readonly otp: OtpService,
    private readonly audit: SignInAuditService,
    private readonly clock: Clock,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async checkMethods(email: string, client: ClientInfo): Promise<LoginMethods> {
    await this.limitIp(client);
    const user = await this.users.findByEmail(email);
    if (!user || (!user.passwordLogin && !user.otpLogin)) throw new AppError('forbidden', AUTH_MESSAGES.emailNotAuthorized);
    return { password: user.passwordLogin && user.passwordHash !== null, otp: user.otpLogin };
  }

  async loginWithPassword(email: string, password: string, client: ClientInfo): Promise<SignedIn> {
    const normalized = normalizeEmail(email);
    await this.limitIp(client);
    await this.limit(`pw:${emailKey(normalized)}`, SIGN_IN_RULES.passwordPerEmail, 'attempts');
    const user = await this.users.findByEmail(normalized);
    const fail = async (reason: string, message: string = AUTH_MESSAGES.invalidCredentials, code: 'unauthorized' | 'forbidden' = 'unauthorized') => {
      await this.audit.record({ email: normalized, userId: user?.id ?? null, method: 'password', outcome: 'failure', reason, ip: client.ip });
      return new AppError(code, message);
    };
    if (user && !user.passwordLogin) throw await fail('method_disabled', AUTH_MESSAGES.passwordLoginDisabled, 'forbidden');
    // Over-long passwords can never match (the limit is 128): refuse without hashing megabytes.
    const plausible = [...password].length <= PASSWORD_MAX_LENGTH;
    const ok = await verifyPassword(plausible ? user?.passwordHash : null, plausible ? password : '');
    if (!user) throw await fail('unknown_email');
    if (!ok) throw await fail('bad_password');
    // The per-email count is of tries since the last success: an admin who signs in often is never locked out.
    await this.limiter.reset(`pw:${emailKey(normalized)}`);
    return this.signIn(user, 'password', client);
  }

  async requestOtp(email: string, client: ClientInfo): Promise<{ expiresAt: number }> {
    const normalized = normalizeEmail(email);
    await this.limitIp(client);
    const user = await this.users.findByEmail(normalized);
    if (!user) throw new AppError('forbidden', AUTH_MESSAGES.emailNotAuthorized);
    if (!user.otpLogin) throw new AppError('forbidden', AUTH_MESSAGES.otpLoginDisabled);
    const key = emailKey(normalized);
    await this.limit(`otp-burst:${key}`, SIGN_IN_RULES.codeBurst, 'code-burst');
    await this.limit(`otp-hour:${key}`, SIGN_IN_RULES.codeHourly, 'code-hourly');
    return this.otp.issue(user);
  }

  async verifyOtp(email: string, code: string, client: ClientInfo): Promise<SignedIn> {
    const normalized = normalizeEmail(email);
    await this.limitIp(client);
    await this.limit(`otp-check:${emailKey(normalized)}`, SIGN_IN_RULES.codeChecksPerEmail, 'attempts');
    const user = await this.users.findByEmail(normalized);
    const fail = async (reason: string, message: string) => {
      await this.audit.record({ email: normalized, userId: user?.id ?? null, method: 'otp', outcome: 'failure', reason, ip: client.ip });
      return new AppError('unauthorized', message);
    };
    if (!user || !user.otpLogin) throw await fail(user ? 'method_disabled' : 'unknown_email', AUTH_MESSAGES.noActiveCode);
    const result = await this.otp.verify(user, code);
    if (!result.ok) {
      const message = {
        none: AUTH_MESSAGES.noActiveCode,
        expired: AUTH_MESSAGES.codeExpired,
        too_many: AUTH_MESSAGES.tooManyAttempts,
        used: AUTH_MESSAGES.codeUsed,
        wrong: invalidCodeMessage(result.attemptsLeft ?? 0),
      }[result.reason];
      throw await fail(result.reason === 'wrong' ? 'wrong_code' : result.reason, message);
    }
    await this.limiter.reset(`otp-check:${emailKey(normalized)}`);
    return this.signIn(user, 'otp', client);
  }

  async refresh(auth: AdminAuth, client: ClientInfo): Promise<SignedIn> {
    const issued = await this.sessions.rotate(auth.session, client);
    return { user: publicUser(auth.user), issued };
  }

  async logout(auth: AdminAuth): Promise<void> {
    await this.sessions.revoke(auth.session.id);
  }

  async stats(): Promise<AuthStats> {
    const [admins, activeSessions, signIns24h, failedAttempts24h] = await Promise.all([
      this.users.count(),
      this.sessions.countActive(),
      this.audit.countLastDay('success'),
      this.audit.countLastDay('failure'),
    ]);
    return { admins, activeSessions, signIns24h, failedAttempts24h };
  }

  private async signIn(user: AdminUser, method: 'password' | 'otp', client: ClientInfo): Promise<SignedIn> {
    const issued = await this.sessions.create(user.id, client);
    await this.audit.record({ email: user.email, userId: user.id, method, outcome: 'success', ip: client.ip });
    return { user: publicUser(user), issued };
  }

  private async limitIp(client: ClientInfo): Promise<void> {
    const rule = { limit: this.config.signInIpLimit, windowMs: SIGN_IN_RULES.ipWindowMs };
    await this.limit(`signin-ip:${client.ip ?? 'unknown'}`, rule, 'attempts');
  }

  private async limit(key: string, rule: RateLimitRule, what: 'code-burst' | 'code-hourly' | 'attempts'): Promise<void> {
    const result = await this.limiter.hit(key, rule, this.clock.now());
    if (!result.allowed) throw new RateLimitedError(what, Math.max(1, Math.ceil(result.retryAfterMs / 1000)));
  }
}
