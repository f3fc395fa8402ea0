import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * An emailed sign-in code. Only an HMAC of it is stored (keyed with the server secret and bound
 * to the row id). `attempts` counts tries, each reserved by a conditional UPDATE before the
 * comparison; `usedAt` is set by a conditional UPDATE too, so a code works exactly once.
 */
@Entity('one_time_codes')
@Index('idx_one_time_codes_user', ['userId'])
export class OneTimeCode {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'expires_at' })
  expiresAt: number;

  @EpochMsColumn({ name: 'used_at', nullable: true })
  usedAt: number | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** Hash of the address that asked for the code (null: written before codes had one). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  requester: string | null;

  /** The outbox row of its mail. */
  @Column({ name: 'mail_id', type: 'varchar', length: 36, nullable: true })
  mailId: string | null;
}
