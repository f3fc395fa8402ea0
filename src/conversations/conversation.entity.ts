import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * A visitor's conversation in one vertical (and, for legal, one jurisdiction: `scope`). The open
 * one (closed_at NULL) is the one the chat page shows and the next question continues; "New chat"
 * closes it. The visitor is known only by `visitorKey`, the SHA-256 of their cookie secret.
 * Counters are kept on the row so the console can filter and sort without reading messages.
 */
@Entity('conversations')
@Index('idx_conversations_visitor', ['visitorKey'])
@Index('idx_conversations_updated_at', ['updatedAt'])
@Index('idx_conversations_vertical_updated_at', ['vertical', 'updatedAt'])
@Index('idx_conversations_handoff', ['handoffState', 'handoffRequestedAt'])
export class Conversation {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'visitor_key', type: 'varchar', length: 64 })
  visitorKey: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  /** Legal: 'US' or 'US/California'; '' for the other verticals. */
  @Column({ type: 'varchar', length: 120, default: '' })
  scope: string;

  @Column({ type: 'varchar', length: 10, nullable: true })
  jurisdiction: string | null;

  @Column({ name: 'sub_jurisdiction', type: 'varchar', length: 100, nullable: true })
  subJurisdiction: string | null;

  /** Language code of the latest question. */
  @Column({ type: 'varchar', length: 10, nullable: true })
  language: string | null;

  /** socket, sse or rest: how the conversation started. */
  @Column({ type: 'varchar', length: 10 })
  channel: string;

  /** The first question, shortened. */
  @Column({ type: 'varchar', length: 200, default: '' })
  title: string;

  @Column({ name: 'message_count', type: 'integer', default: 0 })
  messageCount: number;

  @Column({ name: 'unanswered_count', type: 'integer', default: 0 })
  unansweredCount: number;

  @Column({ name: 'up_votes', type: 'integer', default: 0 })
  upVotes: number;

  @Column({ name: 'down_votes', type: 'integer', default: 0 })
  downVotes: number;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  /** Time of the latest message: retention counts from here. */
  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;

  @EpochMsColumn({ name: 'closed_at', nullable: true })
  closedAt: number | null;

  /** bot, waiting (a person was asked for), open (a member took it) or resolved: src/handoff owns the transitions. */
  @Column({ name: 'handoff_state', type: 'varchar', length: 10, default: 'bot' })
  handoffState: string;

  /** Bumped by every handoff transition: a transition written against another version is refused (409). */
  @Column({ name: 'handoff_version', type: 'integer', default: 0 })
  handoffVersion: number;

  /** The current (or latest) handoff's row in `handoffs`. */
  @Column({ name: 'handoff_id', type: 'varchar', length: 36, nullable: true })
  handoffId: string | null;

  @Column({ name: 'assignee_id', type: 'varchar', length: 36, nullable: true })
  assigneeId: string | null;

  @Column({ name: 'assignee_name', type: 'varchar', length: 100, nullable: true })
  assigneeName: string | null;

  @EpochMsColumn({ name: 'handoff_requested_at', nullable: true })
  handoffRequestedAt: number | null;

  /** The address the visitor left for a person's reply by mail. */
  @Column({ name: 'visitor_email', type: 'varchar', length: 254, nullable: true })
  visitorEmail: string | null;
}
