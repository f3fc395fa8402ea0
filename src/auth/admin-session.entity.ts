import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * 'full': signed in. 'totp': the password or emailed code was right and the sign-in waits for the
 * authenticator code. 'enrol': signed in, but the member must set up a second factor first.
 * Only a full session is an admin session; the others open only the routes of their step.
 */
export type SessionStage = 'full' | 'totp' | 'enrol';

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

  @Column({ type: 'varchar', length: 8, default: 'full' })
  stage: SessionStage;

  /** When the browser signed in (kept when a refresh replaces the session). */
  @EpochMsColumn({ name: 'signed_in_at', nullable: true })
  signedInAt: number | null;

  /** The last request, to the minute (written at most once a minute). */
  @EpochMsColumn({ name: 'last_active_at', nullable: true })
  lastActiveAt: number | null;
}
