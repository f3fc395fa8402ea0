import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

export type OutboxStatus = 'pending' | 'sent' | 'expired' | 'superseded';

/**
 * Mail waiting to be sent, written in the same transaction as whatever it announces. The body may
 * hold a secret (a one-time code), so it is stored encrypted (AES-256-GCM, server key) and wiped
 * once the mail is sent, expired or superseded.
 */
@Entity('mail_outbox')
@Index('idx_mail_outbox_status', ['status', 'createdAt'])
export class MailOutbox {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  /** What the mail is, e.g. 'otp'; a newer mail of the same kind to the same address supersedes older pending ones when asked. */
  @Column({ type: 'varchar', length: 20 })
  kind: string;

  @Column({ name: 'to_address', type: 'varchar', length: 254 })
  toAddress: string;

  @Column({ type: 'varchar', length: 300 })
  subject: string;

  /** Encrypted JSON {text, html}; null once the mail is no longer pending. */
  @Column({ type: 'text', nullable: true })
  payload: string | null;

  @Column({ type: 'varchar', length: 12 })
  status: OutboxStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  /** Not sent after this time (a code mail is useless once the code has expired). */
  @EpochMsColumn({ name: 'expires_at', nullable: true })
  expiresAt: number | null;

  /** A worker holds the row until then (a crashed worker's lease runs out and the sweep retries). */
  @EpochMsColumn({ name: 'locked_until', nullable: true })
  lockedUntil: number | null;

  @EpochMsColumn({ name: 'sent_at', nullable: true })
  sentAt: number | null;
}
