/**
 * Housekeeping of the sign-in tables, hourly on every server (the deletes are idempotent):
 * sessions a week past their end (expiry or revocation), codes a day past their expiry, and
 * sign-in audit rows older than 90 days.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, ObjectLiteral, Repository } from 'typeorm';
import { queuedWrite } from '../database/write-queue';
import { AdminSession } from './admin-session.entity';
import { Clock } from '../common/clock';
import { OneTimeCode } from './one-time-code.entity';
import { SignInEvent } from './sign-in-event.entity';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
export const RETENTION = { sessionsMs: 7 * DAY, codesMs: DAY, signInEventsMs: 90 * DAY } as const;

@Injectable()
export class AuthCleanupService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AuthCleanup');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(AdminSession) private readonly sessions: Repository<AdminSession>,
    @InjectRepository(OneTimeCode) private readonly codes: Repository<OneTimeCode>,
    @InjectRepository(SignInEvent) private readonly signInEvents: Repository<SignInEvent>,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.cleanup().catch((e: Error) => this.logger.warn(`Cleanup failed: ${e.message}`)), HOUR);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Deletes what is past retention; returns how many rows of each kind went. */
  async cleanup(): Promise<{ sessions: number; codes: number; signInEvents: number }> {
    const now = this.clock.now();
    const remove = <T extends ObjectLiteral>(repo: Repository<T>, where: string, before: number) =>
      queuedWrite(this.dataSource, () => repo.createQueryBuilder().delete().where(where, { before }).execute()).then((r) => r.affected ?? 0);
    const sessions = await remove(this.sessions, 'expires_at < :before OR revoked_at < :before', now - RETENTION.sessionsMs);
    const codes = await remove(this.codes, 'expires_at < :before', now - RETENTION.codesMs);
    const signInEvents = await remove(this.signInEvents, 'created_at < :before', now - RETENTION.signInEventsMs);
    return { sessions, codes, signInEvents };
  }
}
