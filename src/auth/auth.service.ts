/**
 * The sign-in flows behind the auth API: which methods an email may use, password and code
 * sign-in (each creating a session and an audit row), refresh, logout and the stats.
 *
 * Throttling (NIST SP 800-63B 5.2.2: bound the guesses, without letting a stranger lock the owner
 * out). Every limit lives in the shared rate limiter (memory, or Redis with REDIS_URL):
 * - per address: SIGN_IN_IP_LIMIT sign-in requests per 15 minutes, all four endpoints together;
 * - per (email, address): 10 password tries and 10 code checks per 15 minutes, 1 code request
 *   per 30 s and 10 per hour. An attacker's address spends its own budget, never the owner's;
 *   a successful sign-in clears that address's tries;
 * - per email, all addresses together (a spread-out attack): after 10 failed password or code
 *   tries since the last sign-in, each further try must wait 1 s, 2 s, 4 s, ... up to 5 minutes
 *   after the previous one; after 10 code mails in an hour, each further one 30 s, 1, 2 ... up to
 *   10 minutes. This slows, it never locks: there is always a next try, and addresses the admin
 *   signed in from during the last 30 days skip these per-email delays altogether.
 * The authenticator-code step (verify-totp) counts the same way: 10 tries per (email, address) per
 * 15 minutes, and every try in the per-email count above.
 * Figures: from one address, at most 10 password guesses per 15 minutes for an account (and 100
 * requests for all accounts); from any number of addresses, about 25 guesses in the first hour on
 * one account and 12 an hour after that. The owner from an address they used before signs in at
 * once; from a new address, they wait at most 5 minutes between tries while an attack is running.
 */
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError } from '../common/app-error';
import { RATE_LIMITER, RateLimiter, RateLimitRule } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig, normalizeEmail, PASSWORD_MAX_LENGTH } from '../config/app-config';
import { OTP_RESEND_SECONDS, type AuthUser } from '../shared/contracts/auth';
import { AdminUser } from './admin-user.entity';
import { AdminUsersService } from './admin-users.service';
import { AUTH_MESSAGES, invalidCodeMessage, RateLimitedError, RateLimitedWhat } from './auth.errors';
import { Clock } from '../common/clock';
import { OtpService } from './otp.service';
import { verifyPassword } from './passwords';
import { SECOND_FACTOR_MESSAGES, SecondFactorProof, SecondFactorService } from './second-factor/second-factor.service';
import { SecurityPolicyService } from './second-factor/security-policy.service';
import { AdminAuth, ClientInfo, IssuedSession, SessionService } from './session.service';
import { SignInAuditService } from './sign-in-audit.service';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A limit no real traffic reaches: the rule only spaces hits. */
const UNCAPPED = 1_000_000;
export const SIGN_IN_RULES = {
  ipWindowMs: 15 * MINUTE,
  passwordPerAddress: { limit: 10, windowMs: 15 * MINUTE },
  codeChecksPerAddress: { limit: 10, windowMs: 15 * MINUTE },
  totpChecksPerAddress: { limit: 10, windowMs: 15 * MINUTE },
  codeBurstPerAddress: { limit: 1, windowMs: OTP_RESEND_SECONDS * 1000 },
  codeHourlyPerAddress: { limit: 10, windowMs: 60 * MINUTE },
  /** Failed password and code tries on one email from all addresses, since its last sign-in. */
  failuresPerEmail: { limit: UNCAPPED, windowMs: DAY, spacing: { after: 10, baseMs: 1000, maxMs: 5 * MINUTE } },
  /** Code mails to one email from all addresses. */
  codesPerEmail: { limit: UNCAPPED, windowMs: 60 * MINUTE, spacing: { after: 10, baseMs: 30_000, maxMs: 10 * MINUTE } },
  /** An address the admin signed in from this recently skips the per-email delays. */
  knownAddressMs: 30 * DAY,
} as const;

export interface LoginMethods {
  password: boolean;
  otp: boolean;
}

export type PublicUser = AuthUser;

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
  return { id: user.id, name: user.name, email: user.email, role: user.role };
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
    private readonly secondFactor: SecondFactorService,
    private readonly policy: SecurityPolicyService,
    private readonly clock: Clock,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async checkMethods(email: string, client: ClientInfo): Promise<LoginMethods> {
    await this.limitIp(client);
    const user = await this.users.findByEmail(email);
    if (!user || (!user.passwordLogin && !user.otpLogin)) throw new AppError('forbidden', AUTH_MESSAGES.emailNotAuthorized);
    if (user.disabledAt !== null) throw new AppError('forbidden', AUTH_MESSAGES.accountDisabled);
    return { password: user.passwordLogin && user.passwordHash !== null, otp: user.otpLogin };
  }

  async loginWithPassword(email: string, password: string, client: ClientInfo): Promise<SignedIn> {
    const normalized = normalizeEmail(email);
    const key = emailKey(normalized);
    await this.limitIp(client);
    await this.limit(`pw:${key}:${client.ip ?? 'unknown'}`, SIGN_IN_RULES.passwordPerAddress, 'attempts');
    const user = await this.users.findByEmail(normalized);
    await this.limitAccount(`signin-email:${key}`, SIGN_IN_RULES.failuresPerEmail, user, client, 'account');
    const fail = async (reason: string, message: string = AUTH_MESSAGES.invalidCredentials, code: 'unauthorized' | 'forbidden' = 'unauthorized') => {
      await this.audit.record({ email: normalized, user, method: 'password', outcome: 'failure', reason, ip: client.ip });
      return new AppError(code, message);
    };
    if (user && !user.passwordLogin) throw await fail('method_disabled', AUTH_MESSAGES.passwordLoginDisabled, 'forbidden');
    // Over-long passwords can never match (the limit is 128): refuse without hashing megabytes.
    const plausible = [...password].length <= PASSWORD_MAX_LENGTH;
    const ok = await verifyPassword(plausible ? user?.passwordHash : null, plausible ? password : '');
    if (!user) throw await fail('unknown_email');
    if (!ok) throw await fail('bad_password');
    // Said only to whoever knows the password.
    if (user.disabledAt !== null) throw await fail('disabled', AUTH_MESSAGES.accountDisabled, 'forbidden');
    // The counts are of tries since the last success.
    await this.clearTries(key, client);
    return this.signIn(user, 'password', client);
  }

  async requestOtp(email: string, client: ClientInfo): Promise<{ expiresAt: number }> {
    const normalized = normalizeEmail(email);
    await this.limitIp(client);
    const user = await this.users.findByEmail(normalized);
    if (!user) throw new AppError('forbidden', AUTH_MESSAGES.emailNotAuthorized);
    if (!user.otpLogin) throw new AppError('forbidden', AUTH_MESSAGES.otpLoginDisabled);
    if (user.disabledAt !== null) throw new AppError('forbidden', AUTH_MESSAGES.accountDisabled);
    const key = emailKey(normalized);
    const address = client.ip ?? 'unknown';
    await this.limit(`otp-burst:${key}:${address}`, SIGN_IN_RULES.codeBurstPerAddress, 'code-burst');
    await this.limit(`otp-hour:${key}:${address}`, SIGN_IN_RULES.codeHourlyPerAddress, 'code-hourly');
    await this.limitAccount(`otp-mail:${key}`, SIGN_IN_RULES.codesPerEmail, user, client, 'code-hourly');
    // The code belongs to this address: it replaces only the code this address asked for before.
    const issued = await this.otp.issue(user, this.otp.requesterOf(client.ip));
    await this.audit.recordCodeSent(user);
    return issued;
  }

  async verifyOtp(email: string, code: string, client: ClientInfo): Promise<SignedIn> {
    const normalized = normalizeEmail(email);
    const key = emailKey(normalized);
    await this.limitIp(client);
    await this.limit(`otp-check:${key}:${client.ip ?? 'unknown'}`, SIGN_IN_RULES.codeChecksPerAddress, 'attempts');
    const user = await this.users.findByEmail(normalized);
    await this.limitAccount(`signin-email:${key}`, SIGN_IN_RULES.failuresPerEmail, user, client, 'account');
    const fail = async (reason: string, message: string) => {
      await this.audit.record({ email: normalized, user, method: 'otp', outcome: 'failure', reason, ip: client.ip });
      return new AppError('unauthorized', message);
    };
    if (!user || !user.otpLogin) throw await fail(user ? 'method_disabled' : 'unknown_email', AUTH_MESSAGES.noActiveCode);
    if (user.disabledAt !== null) throw await fail('disabled', AUTH_MESSAGES.accountDisabled);
    const result = await this.otp.verify(user, code, this.otp.requesterOf(client.ip));
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
    await this.clearTries(key, client);
    return this.signIn(user, 'otp', client);
  }

  /**
   * The second step of a sign-in whose admin has a second factor: the authenticator code or a
   * recovery code. Right: the session becomes a full one (a new cookie). Wrong, replayed or stale:
   * 401, counted like a wrong password.
   */
  async verifySecondFactor(auth: AdminAuth, proof: SecondFactorProof, client: ClientInfo): Promise<SignedIn> {
    const key = emailKey(auth.user.email);
    await this.limitIp(client);
    await this.limit(`totp-check:${key}:${client.ip ?? 'unknown'}`, SIGN_IN_RULES.totpChecksPerAddress, 'attempts');
    await this.limitAccount(`signin-email:${key}`, SIGN_IN_RULES.failuresPerEmail, auth.user, client, 'account');
    const result = await this.secondFactor.verify(auth.user.id, proof);
    if (!result.ok) {
      await this.audit.record({ email: auth.user.email, user: auth.user, method: result.method, outcome: 'failure', reason: result.reason === 'wrong' ? 'wrong_code' : result.reason, ip: client.ip });
      const message =
        result.reason === 'replayed'
          ? SECOND_FACTOR_MESSAGES.replayed
          : result.method === 'recovery'
            ? SECOND_FACTOR_MESSAGES.wrongRecoveryCode
            : result.reason === 'not_enabled'
              ? SECOND_FACTOR_MESSAGES.notOn
              : SECOND_FACTOR_MESSAGES.wrongCode;
      throw new AppError('unauthorized', message);
    }
    await this.clearTries(key, client);
    const issued = await this.sessions.promote(auth.session, client);
    await this.audit.record({ email: auth.user.email, user: auth.user, method: result.method, outcome: 'success', ip: client.ip });
    return { user: publicUser(auth.user), issued };
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

  /**
   * The first factor was right. With a second factor in force the session only opens the code
   * step ('totp'); when second factors are required and the admin has none, it only opens setting
   * one up ('enrol'); otherwise it is a full session.
   */
  private async signIn(user: AdminUser, method: 'password' | 'otp', client: ClientInfo): Promise<SignedIn> {
    const stage = (await this.secondFactor.isEnabled(user.id)) ? 'totp' : (await this.policy.get()).requireSecondFactor ? 'enrol' : 'full';
    const issued = await this.sessions.create(user.id, client, stage);
    // 'partial': the password or code was right, the authenticator code is still to come.
    await this.audit.record({ email: user.email, user, method, outcome: stage === 'totp' ? 'partial' : 'success', ip: client.ip });
    return { user: publicUser(user), issued };
  }

  private async limitIp(client: ClientInfo): Promise<void> {
    const rule = { limit: this.config.signInIpLimit, windowMs: SIGN_IN_RULES.ipWindowMs };
    await this.limit(`signin-ip:${client.ip ?? 'unknown'}`, rule, 'attempts');
  }

  private async limit(key: string, rule: RateLimitRule, what: RateLimitedWhat): Promise<void> {
    const result = await this.limiter.hit(key, rule, this.clock.now());
    if (!result.allowed) throw new RateLimitedError(what, Math.max(1, Math.ceil(result.retryAfterMs / 1000)));
  }

  /**
   * A per-email (all addresses) rule that slows an attack spread over many addresses. An address
   * the admin signed in from during the last 30 days is not slowed by it (checked only when the
   * rule would refuse: one read of the sign-in audit).
   */
  private async limitAccount(key: string, rule: RateLimitRule, user: AdminUser | null, client: ClientInfo, what: RateLimitedWhat): Promise<void> {
    const result = await this.limiter.hit(key, rule, this.clock.now());
    if (result.allowed) return;
    if (user && (await this.audit.signedInFrom(user.id, client.ip, this.clock.now() - SIGN_IN_RULES.knownAddressMs))) return;
    throw new RateLimitedError(what, Math.max(1, Math.ceil(result.retryAfterMs / 1000)));
  }

  /** After a sign-in: this address's password and code tries, and the email's failed tries, start again from zero. */
  private async clearTries(key: string, client: ClientInfo): Promise<void> {
    const address = client.ip ?? 'unknown';
    await Promise.all([
      this.limiter.reset(`pw:${key}:${address}`),
      this.limiter.reset(`otp-check:${key}:${address}`),
      this.limiter.reset(`totp-check:${key}:${address}`),
      this.limiter.reset(`signin-email:${key}`),
    ]);
  }
}
