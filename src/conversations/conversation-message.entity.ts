import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EpochMsColumn, FloatColumn } from '../database/columns';

/**
 * One message of a conversation. `seq` orders them (and keys the SQLite full-text index); `id` is
 * the message's id, for a reply its replyId (the id chat:send acknowledges, feedback rates and
 * GET /interact/replies/{id} reads). A reply is stored as `streaming` once its first frame is out
 * and completed (text, reply data, status) when it ends.
 */
@Entity('conversation_messages')
@Index('idx_conversation_messages_conversation', ['conversationId', 'seq'])
export class ConversationMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  @Column({ type: 'varchar', length: 36, unique: true })
  id: string;

  @Column({ name: 'conversation_id', type: 'varchar', length: 36 })
  conversationId: string;

  /** user (the visitor), agent (the assistant), human (a member's reply) or note (a member's internal note, never shown to the visitor). */
  @Column({ type: 'varchar', length: 5 })
  role: 'user' | 'agent' | 'human' | 'note';

  @Column({ type: 'text' })
  content: string;

  /** complete, streaming, error, stopped or interrupted. */
  @Column({ type: 'varchar', length: 12 })
  status: string;

  @Column({ type: 'varchar', length: 10, nullable: true })
  language: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 100, nullable: true })
  requestId: string | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @FloatColumn({ nullable: true })
  confidence: number | null;

  @Column({ type: 'smallint', nullable: true })
  answered: number | null;

  @Column({ type: 'varchar', length: 4, nullable: true })
  feedback: 'up' | 'down' | null;

  /** The reply data (JSON, without the text, which is `content`). */
  @Column({ type: 'text', nullable: true })
  reply: string | null;

  @Column({ name: 'agent_id', type: 'varchar', length: 100, nullable: true })
  agentId: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  provider: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  model: string | null;

  @EpochMsColumn({ name: 'execution_ms', nullable: true })
  executionMs: number | null;

  @EpochMsColumn({ name: 'ttft_ms', nullable: true })
  ttftMs: number | null;

  @Column({ name: 'error_code', type: 'varchar', length: 40, nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 500, nullable: true })
  errorMessage: string | null;

  /** human, note: the member who wrote it, and their name as the visitor sees it. */
  @Column({ name: 'author_id', type: 'varchar', length: 36, nullable: true })
  authorId: string | null;

  @Column({ name: 'author_name', type: 'varchar', length: 100, nullable: true })
  authorName: string | null;
}
