import { Entity, PrimaryColumn } from 'typeorm';
import { BigIntColumn, FloatColumn } from '../database/columns';
import { epochMsKey } from './epoch-ms-key';

/**
 * Usage of one clock hour per agent, vertical, provider and model, rolled up from usage_events
 * by the rollup job. A whole hour is always recomputed at once (rows replaced in place, in one
 * transaction), so re-running it gives the same rows. Latency sums and counts cover successful
 * replies only (a failure has no response time to speak of).
 */
@Entity('usage_hourly')
export class UsageHourly {
  /** Epoch ms of the start of the hour (a multiple of 3,600,000). */
  @PrimaryColumn({ name: 'hour_start', type: 'bigint', transformer: epochMsKey })
  hourStart: number;

  @PrimaryColumn({ name: 'agent_id', type: 'varchar', length: 100 })
  agentId: string;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  vertical: string;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  provider: string;

  @PrimaryColumn({ type: 'varchar', length: 120 })
  model: string;

  @BigIntColumn()
  requests: number;

  /** Requests with status error. */
  @BigIntColumn()
  errors: number;

  /** Requests the visitor cancelled (neither success nor error). */
  @BigIntColumn()
  cancelled: number;

  @BigIntColumn({ name: 'prompt_tokens' })
  promptTokens: number;

  @BigIntColumn({ name: 'completion_tokens' })
  completionTokens: number;

  @FloatColumn({ name: 'cost_usd' })
  costUsd: number;

  @BigIntColumn({ name: 'latency_sum' })
  latencySum: number;

  @BigIntColumn({ name: 'latency_count' })
  latencyCount: number;

  @BigIntColumn({ name: 'ttft_sum' })
  ttftSum: number;

  @BigIntColumn({ name: 'ttft_count' })
  ttftCount: number;

  /** Successful replies answered from the knowledge base. */
  @BigIntColumn({ default: 0 })
  answered: number;

  /** Successful replies for which that is known (events recorded since it is). */
  @BigIntColumn({ name: 'answer_checked', default: 0 })
  answerChecked: number;
}
