import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';
import type { AuditActorKind } from '../shared/contracts/audit';

/** One audit entry. Append-only: a database trigger refuses UPDATE; only the retention purge deletes. */
@Entity('audit_entries')
@Index('idx_audit_entries_created_at', ['createdAt'])
export class AuditEntryRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @Column({ name: 'actor_kind', type: 'varchar', length: 10 })
  actorKind: AuditActorKind;

  @Column({ name: 'actor_id', type: 'varchar', length: 64, nullable: true })
  actorId: string | null;

  @Column({ name: 'actor_email', type: 'varchar', length: 254, nullable: true })
  actorEmail: string | null;

  @Column({ name: 'actor_name', type: 'varchar', length: 100, nullable: true })
  actorName: string | null;

  @Column({ name: 'actor_role', type: 'varchar', length: 10, nullable: true })
  actorRole: string | null;

  @Column({ type: 'varchar', length: 60 })
  action: string;

  @Column({ name: 'target_kind', type: 'varchar', length: 30, nullable: true })
  targetKind: string | null;

  @Column({ name: 'target_id', type: 'varchar', length: 200, nullable: true })
  targetId: string | null;

  @Column({ name: 'target_title', type: 'varchar', length: 200, nullable: true })
  targetTitle: string | null;

  /** JSON: AuditChange[]. */
  @Column({ type: 'text', nullable: true })
  changes: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 300, nullable: true })
  userAgent: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 100, nullable: true })
  requestId: string | null;
}
