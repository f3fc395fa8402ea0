import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * An A2A task: one message sent by an API key's agent, answered as one reply of the chat pipeline
 * (the task id is the reply id). The row names whose task it is and the A2A context (the
 * conversation) it belongs to; its text, state and sources are the reply's (its stream while it
 * runs, then its message in the conversation).
 */
@Entity('a2a_tasks')
@Index('idx_a2a_tasks_key_created', ['apiKeyId', 'createdAt'])
export class A2aTask {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 36 })
  apiKeyId: string;

  @Column({ name: 'context_id', type: 'varchar', length: 100 })
  contextId: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  /** The question's text (the task's history). */
  @Column({ type: 'text' })
  question: string;

  @Column({ name: 'message_id', type: 'varchar', length: 100 })
  messageId: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;
}
