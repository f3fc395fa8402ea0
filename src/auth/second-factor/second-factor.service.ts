/**
 * The second factor: a TOTP secret per admin (RFC 6238: SHA-1, 6 digits, 30 s steps, as every
 * authenticator app reads it) and ten recovery codes.
 *
 * - Set-up: `enrol` makes a new secret (stored encrypted, not yet in force) and shows it as text,
 *   as an otpauth:// URI and as a QR code; `confirm` puts it in force once a code from the app
 *   matches, and answers the recovery codes, which are shown this once.
 * - A code is accepted in its own 30 s step and the steps either side (clocks drift). The step of
 *   every accepted code is stored with a conditional UPDATE (`last_step < step`), so a code, or an
 *   older one, is never accepted twice, even by two servers at the same moment.
 * - Recovery codes: 10 random letters and digits (about 50 bits), stored as an HMAC with a server
 *   key; each is consumed by a conditional UPDATE (`used_at IS NULL`): usable once.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import * as QRCode from 'qrcode';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { SecretBox } from '../../agents/secret-box';
import { AppError } from '../../common/app-error';
import { queuedWrite, writeTransaction } from '../../database/write-queue';
import { RECOVERY_CODE_CHARS, RECOVERY_CODE_COUNT, type TotpEnrolment } from '../../shared/contracts/auth';
import type { AdminUser } from '../admin-user.entity';
import { Clock } from '../../common/clock';
import { ServerSecret } from '../server-secret';
import { RecoveryCode } from './recovery-code.entity';
import { SecondFactor } from './second-factor.entity';

export const TOTP_ISSUER = 'Support Assistant';
export const TOTP_PERIOD_S = 30;
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;
/** Without look-alikes (0/o, 1/l/i), so a code read off paper is typed right. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** The TOTP secret box: its own key, derived from the server secret like the agents' one. */
export const TOTP_SECRET_BOX = 'TOTP_SECRET_BOX';

export type SecondFactorProof = { code: string; recoveryCode?: undefined } | { code?: undefined; recoveryCode: string };
export type ProofResult = { ok: true; method: 'totp' | 'recovery' } | { ok: false; method: 'totp' | 'recovery'; reason: 'wrong' | 'replayed' | 'not_enabled' };

export const SECOND_FACTOR_MESSAGES = {
  alreadyOn: 'Two-factor authentication is already on. Turn it off first to set it up again.',
  noSetup: 'Start the set-up first: no authenticator secret is waiting for confirmation.',
  confirmMismatch: "That code does not match. Check that your phone's clock is right and enter the newest code.",
  notOn: 'Two-factor authentication is not on for this account.',
  wrongCode: 'The code is not right. Enter the newest code from your authenticator app.',
  replayed: 'This code was already used. Wait for the next code in your authenticator app.',
  wrongRecoveryCode: 'This recovery code is not valid or was already used.',
  required: 'Two-factor authentication is required for every member of this team: it cannot be turned off.',
} as const;

function formatRecoveryCode(raw: string): string {
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

export function generateRecoveryCode(): string {
  let raw = '';
  for (let i = 0; i < RECOVERY_CODE_CHARS; i++) raw += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return formatRecoveryCode(raw);
}

function totpFor(secret: string, account: string): TOTP {
  return new TOTP({ issuer: TOTP_ISSUER, label: account, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** The time step a code matches at `now` (within the window), or null. */
export function matchingStep(secret: string, code: string, now: number): number | null {
  const delta = totpFor(secret, 'x').validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

@Injectable()
export class SecondFactorService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(SecondFactor) private readonly factors: Repository<SecondFactor>,
    @InjectRepository(RecoveryCode) private readonly recovery: Repository<RecoveryCode>,
    @Inject(TOTP_SECRET_BOX) private readonly box: SecretBox,
    private readonly secret: ServerSecret,
    private readonly clock: Clock,
  ) {}

  /** Whether the admin has a second factor in force. */
  async isEnabled(userId: string): Promise<boolean> {
    return (await this.factors.findOneBy({ userId }))?.confirmedAt != null;
  }

  /** The admins with a second factor in force. */
  async enabledUserIds(): Promise<Set<string>> {
    const rows = await this.factors.createQueryBuilder('f').select('f.user_id', 'userId').where('f.confirmed_at IS NOT NULL').getRawMany<{ userId: string }>();
    return new Set(rows.map((r) => r.userId));
  }

  async status(userId: string): Promise<{ enabled: boolean; confirmedAt: number | null; recoveryCodesLeft: number }> {
    const factor = await this.factors.findOneBy({ userId });
    const enabled = factor?.confirmedAt != null;
    const recoveryCodesLeft = enabled ? await this.recovery.createQueryBuilder('r').where('r.user_id = :userId AND r.used_at IS NULL', { userId }).getCount() : 0;
    return { enabled, confirmedAt: enabled ? factor!.confirmedAt : null, recoveryCodesLeft };
  }

  /** A new secret waiting for confirmation (replacing one that waited); 409 when one is in force. */
  async enrol(user: AdminUser): Promise<TotpEnrolment> {
    const secret = new Secret({ size: 20 }).base32;
    const now = this.clock.now();
    const row: SecondFactor = { userId: user.id, secret: this.box.encrypt(secret, this.aad(user.id)), createdAt: now, confirmedAt: null, lastStep: null };
    const started = await writeTransaction(this.dataSource, async (manager) => {
      const existing = await manager.findOneBy(SecondFactor, { userId: user.id });
      if (existing?.confirmedAt != null) return false;
      if (existing) await manager.update(SecondFactor, { userId: user.id }, row);
      else await manager.insert(SecondFactor, row);
      return true;
    });
    if (!started) throw new AppError('conflict', SECOND_FACTOR_MESSAGES.alreadyOn);
    const otpauthUri = totpFor(secret, user.email).toString();
    const qrSvg = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
    return { secret, otpauthUri, qrSvg, issuer: TOTP_ISSUER, account: user.email };
  }

  /** Puts the waiting secret in force when `code` matches it; answers the new recovery codes. */
  async confirm(userId: string, code: string): Promise<string[]> {
    const factor = await this.factors.findOneBy({ userId });
    if (!factor) throw new AppError('conflict', SECOND_FACTOR_MESSAGES.noSetup);
    if (factor.confirmedAt != null) throw new AppError('conflict', SECOND_FACTOR_MESSAGES.alreadyOn);
    const now = this.clock.now();
    const step = matchingStep(this.box.decrypt(factor.secret, this.aad(userId)), code, now);
    if (step === null) throw new AppError('validation_failed', SECOND_FACTOR_MESSAGES.confirmMismatch);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
    const confirmed = await writeTransaction(this.dataSource, async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(SecondFactor)
        .set({ confirmedAt: now, lastStep: step })
        .where('user_id = :userId AND confirmed_at IS NULL AND secret = :secret', { userId, secret: factor.secret })
        .execute();
      if (!result.affected) return false;
      await this.replaceRecoveryCodes(manager, userId, codes);
      return true;
    });
    if (!confirmed) throw new AppError('conflict', SECOND_FACTOR_MESSAGES.noSetup);
    return codes;
  }

  /** Checks an authenticator code or a recovery code of the admin (consuming it when right). */
  async verify(userId: string, proof: SecondFactorProof): Promise<ProofResult> {
    const method = proof.recoveryCode !== undefined ? 'recovery' : 'totp';
    const factor = await this.factors.findOneBy({ userId });
    if (factor?.confirmedAt == null) return { ok: false, method, reason: 'not_enabled' };
    const now = this.clock.now();
    if (proof.recoveryCode !== undefined) {
      const used = await queuedWrite(this.dataSource, () =>
        this.recovery
          .createQueryBuilder()
          .update()
          .set({ usedAt: now })
          .where('user_id = :userId AND code_hash = :hash AND used_at IS NULL', { userId, hash: this.recoveryHash(userId, proof.recoveryCode) })
          .execute(),
      );
      return used.affected ? { ok: true, method } : { ok: false, method, reason: 'wrong' };
    }
    const step = matchingStep(this.box.decrypt(factor.secret, this.aad(userId)), proof.code, now);
    if (step === null) return { ok: false, method, reason: 'wrong' };
    const accepted = await queuedWrite(this.dataSource, () =>
      this.factors
        .createQueryBuilder()
        .update()
        .set({ lastStep: step })
        .where('user_id = :userId AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < :step)', { userId, step })
        .execute(),
    );
    return accepted.affected ? { ok: true, method } : { ok: false, method, reason: 'replayed' };
  }

  /** Ten new recovery codes in place of the old ones (a second factor must be in force). */
  async newRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
    await writeTransaction(this.dataSource, (manager) => this.replaceRecoveryCodes(manager, userId, codes));
    return codes;
  }

  /** Removes the admin's second factor and recovery codes; false when there was none. */
  async remove(userId: string): Promise<boolean> {
    return writeTransaction(this.dataSource, async (manager) => {
      await manager.delete(RecoveryCode, { userId });
      const result = await manager.delete(SecondFactor, { userId });
      return (result.affected ?? 0) > 0;
    });
  }

  private async replaceRecoveryCodes(manager: EntityManager, userId: string, codes: string[]): Promise<void> {
    const now = this.clock.now();
    await manager.delete(RecoveryCode, { userId });
    await manager.insert(
      RecoveryCode,
      codes.map((code) => ({ id: randomUUID(), userId, codeHash: this.recoveryHash(userId, code), createdAt: now, usedAt: null })),
    );
  }

  private recoveryHash(userId: string, code: string): string {
    const normalized = code.replace(/[\s-]+/g, '').toLowerCase();
    return createHmac('sha256', this.secret.key('recovery-codes')).update(`${userId}:${normalized}`).digest('hex');
  }

  private aad(userId: string): string {
    return `admin-totp:${userId}`;
  }
}
