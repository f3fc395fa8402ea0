import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';

/** One of an admin's ten recovery codes: only its HMAC (server key) is stored; usable once. */
@Entity('admin_recovery_codes')
@Index('idx_admin_recovery_codes_user', ['userId'])
export class RecoveryCode {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'used_at', nullable: true })
  usedAt: number | null;
}
