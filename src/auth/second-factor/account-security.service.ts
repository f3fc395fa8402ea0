/**
 * What a signed-in admin does with their own second factor and sessions, and what an owner does
 * for the whole team: require a second factor of everyone, reset a member's, end anyone's session.
 * The audit log records these through the routes' @Audit names (the interceptor); a code refused
 * here is recorded with the sign-in attempts (and so in the audit log as a failed sign-in check).
 *
 * Codes asked for while signed in (turning the second factor off, new recovery codes) are limited
 * to 10 tries per admin per 15 minutes, so a stolen session cannot guess its way through.
 */
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { RATE_LIMITER, RateLimiter } from '../../common/rate-limit/rate-limiter';
import type { SecondFactorCode, SecurityPolicy, SessionInfo, TotpEnrolment, TotpStatus } from '../../shared/contracts/auth';
import { AdminUser } from '../admin-user.entity';
import { AdminUsersService } from '../admin-users.service';
import { publicUser, PublicUser } from '../auth.service';
import { browserLabel } from '../browser-label';
import { Clock } from '../../common/clock';
import { AdminAuth, ClientInfo, IssuedSession, SessionService } from '../session.service';
import { SignInAuditService } from '../sign-in-audit.service';
import { can } from '../../shared/contracts/roles';
import { SECOND_FACTOR_MESSAGES, SecondFactorProof, SecondFactorService } from './second-factor.service';
import { SecurityPolicyService } from './security-policy.service';

const MANAGE_RULE = { limit: 10, windowMs: 15 * 60_000 };

export const ACCOUNT_MESSAGES = {
  ownersOnly: 'Only an owner can do this.',
  ownFactorFirst: 'Set up your own two-factor authentication before requiring it of everyone.',
  resetOwnInstead: 'To turn off your own two-factor authentication, use Turn off with a code from your app.',
  memberNotFound: 'No such member.',
  sessionNotFound: 'No such active session.',
  tooManyTries: (seconds: number) => `Too many codes tried. Try again in ${seconds} seconds.`,
} as const;

export interface Confirmed {
  recoveryCodes: string[];
  /** The enrol-stage session became a full one: its new cookie. */
  issued?: IssuedSession;
  user: PublicUser;
}

@Injectable()
export class AccountSecurityService {
  constructor(
    private readonly factors: SecondFactorService,
    private readonly policy: SecurityPolicyService,
    private readonly sessions: SessionService,
    private readonly users: AdminUsersService,
    private readonly audit: SignInAuditService,
    private readonly clock: Clock,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  async status(auth: AdminAuth): Promise<TotpStatus> {
    const [status, policy] = await Promise.all([this.factors.status(auth.user.id), this.policy.get()]);
    return { ...status, confirmedAt: status.confirmedAt === null ? null : new Date(status.confirmedAt).toISOString(), required: policy.requireSecondFactor };
  }

  enrol(auth: AdminAuth): Promise<TotpEnrolment> {
    return this.factors.enrol(auth.user);
  }

  /** Puts the new second factor in force; a member who had to set one up is then fully signed in. */
  async confirm(auth: AdminAuth, code: string, client: ClientInfo): Promise<Confirmed> {
    await this.limitTries(auth.user);
    const recoveryCodes = await this.factors.confirm(auth.user.id, code);
    const issued = auth.session.stage === 'enrol' ? await this.sessions.promote(auth.session, client) : undefined;
    return { recoveryCodes, issued, user: publicUser(auth.user) };
  }

  /** Turns the admin's own second factor off, proven with a code or a recovery code; refused while the team requires one. */
  async disable(auth: AdminAuth, proof: SecondFactorCode & SecondFactorProof, client: ClientInfo): Promise<void> {
    if ((await this.policy.get()).requireSecondFactor) throw new AppError('forbidden', SECOND_FACTOR_MESSAGES.required);
    await this.prove(auth, proof, client);
    await this.factors.remove(auth.user.id);
  }

  async newRecoveryCodes(auth: AdminAuth, code: string, client: ClientInfo): Promise<string[]> {
    await this.prove(auth, { code }, client);
    return this.factors.newRecoveryCodes(auth.user.id);
  }

  async getPolicy(): Promise<SecurityPolicy> {
    return this.policy.get();
  }

  /**
   * An owner requires (or stops requiring) a second factor of every member. Requiring it turns the
   * sessions of members without one into set-up-only sessions at once (their sockets close).
   */
  async setPolicy(auth: AdminAuth, next: SecurityPolicy): Promise<SecurityPolicy> {
    this.assertOwner(auth.user);
    if (next.requireSecondFactor && !(await this.factors.isEnabled(auth.user.id))) throw new AppError('conflict', ACCOUNT_MESSAGES.ownFactorFirst);
    const saved = await this.policy.save(next);
    if (saved.requireSecondFactor) await this.sessions.requireEnrolment(await this.factors.enabledUserIds());
    return saved;
  }

  /** An owner removes a member's second factor (a lost phone); the member's sessions end. */
  async resetMember(auth: AdminAuth, memberId: string): Promise<void> {
    this.assertOwner(auth.user);
    if (memberId === auth.user.id) throw new AppError('validation_failed', ACCOUNT_MESSAGES.resetOwnInstead);
    const member = await this.users.findById(memberId);
    if (!member) throw new AppError('not_found', ACCOUNT_MESSAGES.memberNotFound);
    await this.factors.remove(member.id);
    await this.sessions.revokeAllOf(member.id);
  }

  async listSessions(auth: AdminAuth, scope: 'mine' | 'all'): Promise<SessionInfo[]> {
    if (scope === 'all') this.assertOwner(auth.user);
    const rows = await this.sessions.listActive(scope === 'all' ? undefined : auth.user.id);
    const iso = (ms: number) => new Date(ms).toISOString();
    return rows.map((s) => ({
      id: s.id,
      browser: browserLabel(s.userAgent),
      ip: s.ip,
      signedInAt: iso(s.signedInAt ?? s.createdAt),
      lastActiveAt: iso(s.lastActiveAt ?? s.createdAt),
      expiresAt: iso(s.expiresAt),
      current: s.id === auth.session.id,
      user: { id: s.user.id, name: s.user.name, email: s.user.email },
    }));
  }

  /** Ends one of the admin's own sessions, or (an owner) anyone's. Answers whether it was the caller's own. */
  async endSession(auth: AdminAuth, sessionId: string): Promise<{ current: boolean }> {
    const session = await this.sessions.findActive(sessionId);
    if (!session || (session.userId !== auth.user.id && !can(auth.user.role, 'teamSecurity'))) throw new AppError('not_found', ACCOUNT_MESSAGES.sessionNotFound);
    await this.sessions.revoke(session.id);
    return { current: session.id === auth.session.id };
  }

  private async prove(auth: AdminAuth, proof: SecondFactorProof, client: ClientInfo): Promise<void> {
    await this.limitTries(auth.user);
    const result = await this.factors.verify(auth.user.id, proof);
    if (result.ok) return;
    await this.audit.record({ email: auth.user.email, user: auth.user, method: result.method, outcome: 'failure', reason: result.reason, ip: client.ip });
    if (result.reason === 'not_enabled') throw new AppError('conflict', SECOND_FACTOR_MESSAGES.notOn);
    // 400, not 401: a wrong code does not end the session it was typed in.
    const message = result.reason === 'replayed' ? SECOND_FACTOR_MESSAGES.replayed : result.method === 'recovery' ? SECOND_FACTOR_MESSAGES.wrongRecoveryCode : SECOND_FACTOR_MESSAGES.wrongCode;
    throw new AppError('validation_failed', message);
  }

  private async limitTries(user: AdminUser): Promise<void> {
    const result = await this.limiter.hit(`totp-manage:${user.id}`, MANAGE_RULE, this.clock.now());
    if (!result.allowed) {
      const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      throw new AppError('rate_limited', ACCOUNT_MESSAGES.tooManyTries(seconds), { retryAfterSeconds: seconds });
    }
  }

  private assertOwner(user: AdminUser): void {
    if (!can(user.role, 'teamSecurity')) throw new AppError('forbidden', ACCOUNT_MESSAGES.ownersOnly);
  }
}
