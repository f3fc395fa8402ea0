import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * One time a person was asked for in a conversation: why, the question the knowledge had no
 * answer to (and its knowledge gap), and when it was taken, first answered and resolved
 * (Analytics' handoff figures). Written with raw SQL by HandoffService.
 */
@Entity('handoffs')
@Index('idx_handoffs_requested_at', ['requestedAt'])
@Index('idx_handoffs_conversation', ['conversationId'])
export class HandoffRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'conversation_id', type: 'varchar', length: 36 })
  conversationId: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  /** visitor, words, unanswered, tool or message. */
  @Column({ type: 'varchar', length: 20 })
  reason: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  question: string | null;

  @Column({ name: 'gap_id', type: 'varchar', length: 36, nullable: true })
  gapId: string | null;

  /** 1 when asked within the vertical's business hours. */
  @Column({ name: 'within_hours', type: 'smallint', default: 1 })
  withinHours: number;

  @EpochMsColumn({ name: 'requested_at' })
  requestedAt: number;

  @EpochMsColumn({ name: 'taken_at', nullable: true })
  takenAt: number | null;

  @EpochMsColumn({ name: 'first_reply_at', nullable: true })
  firstReplyAt: number | null;

  @EpochMsColumn({ name: 'resolved_at', nullable: true })
  resolvedAt: number | null;

  @Column({ name: 'assignee_id', type: 'varchar', length: 36, nullable: true })
  assigneeId: string | null;
}
