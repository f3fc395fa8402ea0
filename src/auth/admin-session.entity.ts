import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * A signed-in browser. The cookie holds a random 256-bit token; only its SHA-256 is stored here.
 * Valid while `revokedAt` is null and `expiresAt` is in the future.
 */
@Entity('admin_sessions')
@Index('idx_admin_sessions_user', ['userId'])
@Index('idx_admin_sessions_token_hash', ['tokenHash'], { unique: true })
export class AdminSession {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'expires_at' })
  expiresAt: number;

  @EpochMsColumn({ name: 'revoked_at', nullable: true })
  revokedAt: number | null;

  /** The session that replaced this one at refresh. */
  @Column({ name: 'replaced_by', type: 'varchar', length: 36, nullable: true })
  replacedBy: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 300, nullable: true })
  userAgent: string | null;
}
