/**
 * One-time codes: 6 digits from crypto.randomInt, valid 10 minutes, stored only as an HMAC-SHA256
 * (server key, bound to the row id). A new request deletes the admin's earlier codes and writes
 * the code and its mail (outbox) in one transaction; the mail is then dispatched to the job queue.
 *
 * Verification is race-free on SQLite and Postgres alike: every try first reserves one of the 5
 * attempts with a conditional UPDATE (`attempts < 5`, checked by affected rows), then compares;
 * a matching code is consumed with another conditional UPDATE (`used_at IS NULL`). So of any
 * number of parallel submissions at most 5 are compared and exactly one can succeed, and after 5
 * wrong tries even the right code is refused.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { DataSource, IsNull, Repository } from 'typeorm';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import { MailOutboxService } from '../mail/mail-outbox.service';
import { AdminUser } from './admin-user.entity';
import { Clock } from './clock';
import { OneTimeCode } from './one-time-code.entity';
import { otpMail } from './otp-mail';
import { ServerSecret } from './server-secret';

export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_MAX_ATTEMPTS = 5;
export const OTP_DIGITS = 6;

export type OtpFailure = 'none' | 'expired' | 'too_many' | 'used' | 'wrong';
export type OtpResult = { ok: true } | { ok: false; reason: OtpFailure; attemptsLeft?: number };

export function generateCode(): string {
  return randomInt(0, 10 ** OTP_DIGITS).toString().padStart(OTP_DIGITS, '0');
}

@Injectable()
export class OtpService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(OneTimeCode) private readonly codes: Repository<OneTimeCode>,
    private readonly clock: Clock,
    private readonly secret: ServerSecret,
    private readonly outbox: MailOutboxService,
  ) {}

  /** Issues a new code for the admin (replacing any earlier one) and queues its mail. */
  async issue(user: AdminUser): Promise<{ expiresAt: number }> {
    const now = this.clock.now();
    const id = randomUUID();
    const code = generateCode();
    const expiresAt = now + OTP_TTL_MS;
    const outboxId = await writeTransaction(this.dataSource, async (manager) => {
      await manager.delete(OneTimeCode, { userId: user.id });
      await manager.insert(OneTimeCode, { id, userId: user.id, codeHash: this.hash(id, code), createdAt: now, expiresAt, usedAt: null, attempts: 0 });
      return this.outbox.add(manager, otpMail(user.email, user.name, code, OTP_TTL_MS / 60_000), {
        kind: 'otp',
        expiresAt: Date.now() + OTP_TTL_MS,
        supersedePending: true,
      });
    });
    void this.outbox.dispatch(outboxId);
    return { expiresAt };
  }

  async verify(user: AdminUser, code: string): Promise<OtpResult> {
    const now = this.clock.now();
    const row = await this.codes.findOne({ where: { userId: user.id, usedAt: IsNull() }, order: { createdAt: 'DESC' } });
    if (!row) return { ok: false, reason: 'none' };
    if (row.expiresAt <= now) return { ok: false, reason: 'expired' };
    if (row.attempts >= OTP_MAX_ATTEMPTS) return { ok: false, reason: 'too_many' };

    const reserved = await queuedWrite(this.dataSource, () =>
      this.codes
        .createQueryBuilder()
        .update()
        .set({ attempts: () => 'attempts + 1' })
        .where('id = :id AND used_at IS NULL AND attempts < :max AND expires_at > :now', { id: row.id, max: OTP_MAX_ATTEMPTS, now })
        .execute(),
    );
    if (!reserved.affected) return { ok: false, reason: await this.whyUnavailable(row.id, now) };

    if (!this.matches(row, code)) {
      const fresh = await this.codes.findOneBy({ id: row.id });
      const attemptsLeft = Math.max(0, OTP_MAX_ATTEMPTS - (fresh?.attempts ?? OTP_MAX_ATTEMPTS));
      return { ok: false, reason: attemptsLeft === 0 ? 'too_many' : 'wrong', attemptsLeft };
    }

    const consumed = await queuedWrite(this.dataSource, () =>
      this.codes
        .createQueryBuilder()
        .update()
        .set({ usedAt: now })
        .where('id = :id AND used_at IS NULL AND expires_at > :now', { id: row.id, now })
        .execute(),
    );
    return consumed.affected ? { ok: true } : { ok: false, reason: await this.whyUnavailable(row.id, now) };
  }

  private async whyUnavailable(id: string, now: number): Promise<OtpFailure> {
    const row = await this.codes.findOneBy({ id });
    if (!row) return 'none';
    if (row.usedAt !== null) return 'used';
    if (row.expiresAt <= now) return 'expired';
    return 'too_many';
  }

  private hash(id: string, code: string): string {
    return createHmac('sha256', this.secret.key('otp-hmac')).update(`${id}:${code}`).digest('hex');
  }

  private matches(row: OneTimeCode, code: string): boolean {
    const expected = Buffer.from(row.codeHash, 'hex');
    const actual = Buffer.from(this.hash(row.id, code), 'hex');
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}
