import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';
import type { Role } from '../shared/contracts/roles';

/**
 * An invitation to join the team, sent by email. Only the SHA-256 of the link's token is kept:
 * the link itself exists only in the mail. It works once (`acceptedAt`), until `expiresAt`, and
 * not after it was withdrawn (`revokedAt`) or replaced by a newer invitation to the same address.
 */
@Entity('team_invitations')
@Index('idx_team_invitations_token_hash', ['tokenHash'], { unique: true })
@Index('idx_team_invitations_email', ['email'])
export class TeamInvitation {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 10 })
  role: Role;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  /** The member who sent it; null once they were removed. */
  @Column({ name: 'invited_by', type: 'varchar', length: 36, nullable: true })
  invitedBy: string | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'expires_at' })
  expiresAt: number;

  @EpochMsColumn({ name: 'accepted_at', nullable: true })
  acceptedAt: number | null;

  @Column({ name: 'accepted_by', type: 'varchar', length: 36, nullable: true })
  acceptedBy: string | null;

  @EpochMsColumn({ name: 'revoked_at', nullable: true })
  revokedAt: number | null;
}
