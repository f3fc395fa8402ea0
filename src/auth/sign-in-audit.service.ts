import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { queuedWrite } from '../database/write-queue';
import { Clock } from './clock';
import { SignInEvent, SignInMethod, SignInOutcome } from './sign-in-event.entity';

const DAY_MS = 24 * 3600 * 1000;

/** Records every password and code attempt (never the password or code) and counts them for the stats. */
@Injectable()
export class SignInAuditService {
  private readonly logger = new Logger('SignInAudit');

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(SignInEvent) private readonly events: Repository<SignInEvent>,
    private readonly clock: Clock,
  ) {}

  async record(event: { email: string; userId: string | null; method: SignInMethod; outcome: SignInOutcome; reason?: string; ip?: string }): Promise<void> {
    try {
      await queuedWrite(this.dataSource, () =>
        this.events.insert({
          id: randomUUID(),
          createdAt: this.clock.now(),
          userId: event.userId,
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
