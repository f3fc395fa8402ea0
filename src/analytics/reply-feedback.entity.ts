import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';
import type { FeedbackVote } from '../shared/contracts/analytics';

/**
 * A visitor's thumbs up or down on one agent reply. The reply is its usage event (`reply_id` =
 * usage_events.id), so there is one vote per reply; voting again changes it. The agent and the
 * reply's time are copied from the event, so the Helpful rate per agent and window is one
 * indexed range query, without a join over usage_events.
 */
@Entity('reply_feedback')
@Index('idx_reply_feedback_reply_created_at', ['replyCreatedAt'])
export class ReplyFeedback {
  @PrimaryColumn({ name: 'reply_id', type: 'varchar', length: 36 })
  replyId: string;

  @Column({ type: 'varchar', length: 4 })
  vote: FeedbackVote;

  @Column({ name: 'agent_id', type: 'varchar', length: 100 })
  agentId: string;

  @EpochMsColumn({ name: 'reply_created_at' })
  replyCreatedAt: number;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
