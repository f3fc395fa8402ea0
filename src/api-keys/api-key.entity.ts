import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * A key for machine channels (/interact, and later A2A, MCP). The key is shown once when issued;
 * only its SHA-256 and its visible prefix (which finds the row) are kept. `scopes` is a
 * comma-separated list of API_KEY_SCOPES.
 */
@Entity('api_keys')
@Index('idx_api_keys_prefix', ['prefix'], { unique: true })
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  @Column({ type: 'varchar', length: 200 })
  scopes: string;

  @EpochMsColumn({ name: 'expires_at', nullable: true })
  expiresAt: number | null;

  /** Requests per minute this key may make (besides the chat limits); null: none of its own. */
  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true })
  rateLimitPerMinute: number | null;

  @Column({ name: 'created_by', type: 'varchar', length: 36, nullable: true })
  createdBy: string | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'last_used_at', nullable: true })
  lastUsedAt: number | null;

  @EpochMsColumn({ name: 'revoked_at', nullable: true })
  revokedAt: number | null;
}
