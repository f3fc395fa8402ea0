import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AuditService, memberActor } from '../audit/audit.service';
import { queuedWrite } from '../database/write-queue';
import type { AdminUser } from './admin-user.entity';
import { Clock } from '../common/clock';
import { SignInEvent, SignInMethod, SignInOutcome } from './sign-in-event.entity';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Records every password and code attempt (never the password or code): in the sign-in table the
 * throttling and the stats read, and in the audit log (auth.sign-in, auth.sign-in-failed with the
 * method and reason).
 */
@Injectable()
export class SignInAuditService {
  private readonly logger = new Logger('SignInAudit');

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(SignInEvent) private readonly events: Repository<SignInEvent>,
    private readonly clock: Clock,
    @Optional() private readonly audit?: AuditService,
  ) {}

  async record(event: { email: string; user: AdminUser | null; method: SignInMethod; outcome: SignInOutcome; reason?: string; ip?: string }): Promise<void> {
    await Promise.all([this.recordAttempt(event), this.recordInAuditLog(event)]);
  }

  /** A sign-in event that is not an attempt (a code mailed): the audit log only. */
  async recordCodeSent(user: AdminUser): Promise<void> {
    try {
      await this.audit?.record({ action: 'auth.code-sent', actor: { kind: 'anonymous', email: user.email }, target: { kind: 'member', id: user.id, title: user.email } });
    } catch (error) {
      this.logger.warn(`Could not record a sign-in event in the audit log: ${(error as Error).message}`);
    }
  }

  private async recordInAuditLog(event: { email: string; user: AdminUser | null; method: SignInMethod; outcome: SignInOutcome; reason?: string }): Promise<void> {
    try {
      await this.audit?.record({
        // 'partial': the password or emailed code was right; the authenticator code is still to come.
        action: event.outcome === 'success' ? 'auth.sign-in' : event.outcome === 'partial' ? 'auth.first-factor-passed' : 'auth.sign-in-failed',
        actor: event.user ? memberActor(event.user) : { kind: 'anonymous', email: event.email },
        target: { kind: 'member', id: event.user?.id ?? null, title: event.email },
        changes: [{ field: 'method', after: event.method }, ...(event.reason ? [{ field: 'reason', after: event.reason }] : [])],
      });
    } catch (error) {
      this.logger.warn(`Could not record a sign-in event in the audit log: ${(error as Error).message}`);
    }
  }

  private async recordAttempt(event: { email: string; user: AdminUser | null; method: SignInMethod; outcome: SignInOutcome; reason?: string; ip?: string }): Promise<void> {
    try {
      await queuedWrite(this.dataSource, () =>
        this.events.insert({
          id: randomUUID(),
          createdAt: this.clock.now(),
          userId: event.user?.id ?? null,
          email: event.email.slice(0, 254),
          method: event.method,
          outcome: event.outcome,
          reason: event.reason ?? null,
          ip: event.ip?.slice(0, 64) ?? null,
        }),
      );
    } catch (error) {
      // The audit must not turn a sign-in into an error.
      this.logger.warn(`Could not record a sign-in event: ${(error as Error).message}`);
    }
  }

  /** Whether this admin signed in successfully from this address since `since` (epoch ms). */
  async signedInFrom(userId: string, ip: string | undefined, since: number): Promise<boolean> {
    if (!ip) return false;
    return this.events
      .createQueryBuilder('e')
      .where('e.user_id = :userId AND e.outcome = :outcome AND e.ip = :ip AND e.created_at > :since', { userId, outcome: 'success', ip: ip.slice(0, 64), since })
      .getExists();
  }

  countLastDay(outcome: SignInOutcome): Promise<number> {
    return this.events
      .createQueryBuilder('e')
      .where('e.outcome = :outcome AND e.created_at > :since', { outcome, since: this.clock.now() - DAY_MS })
      .getCount();
  }
}
