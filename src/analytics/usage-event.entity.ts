import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BigIntColumn, EpochMsColumn, FloatColumn } from '../database/columns';

export type UsageStatus = 'success' | 'error' | 'cancelled';
/** How the chat was asked: the chat socket, /interact (JSON or SSE), an A2A agent or an MCP client. */
export type UsageChannel = 'socket' | 'rest' | 'sse' | 'a2a' | 'mcp';
/**
 * A reply ('chat'), a question rewritten for retrieval ('rewrite'), texts embedded for hybrid
 * retrieval ('embedding'), or a recording transcribed for the microphone ('speech').
 */
export type UsageKind = 'chat' | 'rewrite' | 'embedding' | 'speech';

/**
 * One LLM call: written by the usage recorder, in batches. A chat request records one 'chat'
 * event (its reply), plus a 'rewrite' event when its question was rewritten for retrieval;
 * embedding calls record 'embedding' events. Only chats count as requests in Analytics; every
 * kind counts in tokens and cost.
 */
@Entity('usage_events')
@Index('idx_usage_events_created_at', ['createdAt'])
export class UsageEvent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @Column({ name: 'request_id', type: 'varchar', length: 100 })
  requestId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 100 })
  agentId: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  @Column({ type: 'varchar', length: 40 })
  provider: string;

  @Column({ type: 'varchar', length: 120 })
  model: string;

  @Column({ type: 'varchar', length: 10 })
  channel: UsageChannel;

  @Column({ type: 'varchar', length: 10, default: 'chat' })
  kind: UsageKind;

  @Column({ type: 'varchar', length: 10 })
  status: UsageStatus;

  @Column({ name: 'error_code', type: 'varchar', length: 40, nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 500, nullable: true })
  errorMessage: string | null;

  @BigIntColumn({ name: 'prompt_tokens' })
  promptTokens: number;

  @BigIntColumn({ name: 'completion_tokens' })
  completionTokens: number;

  @FloatColumn({ name: 'cost_usd' })
  costUsd: number;

  @BigIntColumn({ name: 'latency_ms' })
  latencyMs: number;

  @BigIntColumn({ name: 'ttft_ms', nullable: true })
  ttftMs: number | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  language: string | null;

  /**
   * Whether the reply was answered from the knowledge base (a passage cleared the relevance
   * floor); false for "not found" replies; null for events recorded before this was known.
   */
  @Column({
    type: 'smallint',
    nullable: true,
    transformer: { to: (v?: boolean | null) => (v === undefined || v === null ? null : v ? 1 : 0), from: (v: unknown) => (v === null || v === undefined ? null : Number(v) === 1) },
  })
  answered: boolean | null;

  /** The widget the chat came through; null for the chat page and the machine channels. */
  @Column({ name: 'widget_id', type: 'varchar', length: 36, nullable: true })
  widgetId: string | null;
}
