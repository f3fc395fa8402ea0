/**
 * One-time codes: 6 digits from crypto.randomInt, valid 10 minutes, stored only as an HMAC-SHA256
 * (server key, bound to the row id). A code belongs to the sign-in that asked for it, identified
 * by the client's address (`requester`, an HMAC of the IP): a new request from the same address
 * replaces that address's code (and supersedes its mail if still unsent), while a request from
 * another address leaves it alone, and a check from another address never sees it. So a stranger
 * asking for codes or guessing them can neither replace the admin's code nor spend its tries.
 * The code and its mail (outbox) are written in one transaction; the mail is then dispatched to
 * the job queue.
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
import { Brackets, DataSource, EntityManager, Repository } from 'typeorm';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import { MailOutboxService } from '../mail/mail-outbox.service';
import { AdminUser } from './admin-user.entity';
import { Clock } from '../common/clock';
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

  /** Who asked: an HMAC of the client address (the same address always gives the same value). */
  requesterOf(ip: string | undefined): string {
    return createHmac('sha256', this.secret.key('otp-hmac')).update(`requester:${ip ?? 'unknown'}`).digest('hex');
  }

  /**
   * Issues a new code for the admin, replacing the one this requester had (its mail is superseded
   * if still unsent), and queues its mail. Codes other requesters asked for stay valid.
   */
  async issue(user: AdminUser, requester: string): Promise<{ expiresAt: number }> {
    const now = this.clock.now();
    const id = randomUUID();
    const code = generateCode();
    const expiresAt = now + OTP_TTL_MS;
    const outboxId = await writeTransaction(this.dataSource, async (manager) => {
      const replaced = await this.ownCodes(manager, user.id, requester).getMany();
      await manager
        .createQueryBuilder()
        .delete()
        .from(OneTimeCode)
        .where('user_id = :user AND (requester = :requester OR requester IS NULL OR expires_at <= :now OR used_at IS NOT NULL)', { user: user.id, requester, now })
        .execute();
      await this.outbox.supersede(manager, replaced.map((r) => r.mailId).filter((m): m is string => m !== null));
      const mailId = await this.outbox.add(manager, otpMail(user.email, user.name, code, OTP_TTL_MS / 60_000), {
        kind: 'otp',
        expiresAt: Date.now() + OTP_TTL_MS,
      });
      await manager.insert(OneTimeCode, { id, userId: user.id, codeHash: this.hash(id, code), createdAt: now, expiresAt, usedAt: null, attempts: 0, requester, mailId });
      return mailId;
    });
    void this.outbox.dispatch(outboxId);
    return { expiresAt };
  }

  /** Checks `code` against the live code this requester asked for (another requester's code is never tried). */
  async verify(user: AdminUser, code: string, requester: string): Promise<OtpResult> {
    const now = this.clock.now();
    const row = await this.ownCodes(this.codes.manager, user.id, requester).andWhere('c.used_at IS NULL').orderBy('c.created_at', 'DESC').getOne();
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

  /** The user's codes asked for by `requester` (and codes from before requesters were recorded). */
  private ownCodes(manager: EntityManager, userId: string, requester: string) {
    return manager
      .getRepository(OneTimeCode)
      .createQueryBuilder('c')
      .where('c.user_id = :userId', { userId })
      .andWhere(new Brackets((w) => w.where('c.requester = :requester', { requester }).orWhere('c.requester IS NULL')));
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
