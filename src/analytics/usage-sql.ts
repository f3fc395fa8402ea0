/**
 * The SQL of usage figures, written once for both sources: raw usage_events and the hourly
 * rollups (usage_hourly), which hold the same measures pre-summed per hour. Rolling up an hour
 * is the raw aggregate grouped by hour and dimensions, so both sources agree by construction.
 * Plain SQL that SQLite and Postgres both run (integer division of BIGINT epoch ms, CASE, SUM).
 */
import { HOUR_MS } from './analytics-window';

export type UsageSource = 'raw' | 'rollup';
export type UsageDimension = 'hour' | 'agent' | 'vertical' | 'provider' | 'model';

/** Start of the event's clock hour. */
export const RAW_HOUR_SQL = `(created_at / ${HOUR_MS}) * ${HOUR_MS}`;

export const TABLE: Record<UsageSource, string> = { raw: 'usage_events', rollup: 'usage_hourly' };
export const TIME_COLUMN: Record<UsageSource, string> = { raw: 'created_at', rollup: 'hour_start' };

export const DIMENSION_SQL: Record<UsageDimension, Record<UsageSource, string>> = {
  hour: { raw: RAW_HOUR_SQL, rollup: 'hour_start' },
  agent: { raw: 'agent_id', rollup: 'agent_id' },
  vertical: { raw: 'vertical', rollup: 'vertical' },
  provider: { raw: 'provider', rollup: 'provider' },
  model: { raw: 'model', rollup: 'model' },
};

/** The measures, in the column order of usage_hourly after its key. */
export const MEASURES = [
  'requests',
  'errors',
  'cancelled',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
  'latency_sum',
  'latency_count',
  'ttft_sum',
  'ttft_count',
  'answered',
  'answer_checked',
] as const;
export type Measure = (typeof MEASURES)[number];

/** Only replies ('chat' events) are requests; rewrites and embedding calls add tokens and cost. */
const CHAT = "kind = 'chat'";

const RAW_MEASURE_SQL: Record<Measure, string> = {
  requests: `SUM(CASE WHEN ${CHAT} THEN 1 ELSE 0 END)`,
  errors: `SUM(CASE WHEN ${CHAT} AND status = 'error' THEN 1 ELSE 0 END)`,
  cancelled: `SUM(CASE WHEN ${CHAT} AND status = 'cancelled' THEN 1 ELSE 0 END)`,
  prompt_tokens: 'SUM(prompt_tokens)',
  completion_tokens: 'SUM(completion_tokens)',
  cost_usd: 'SUM(cost_usd)',
  latency_sum: `SUM(CASE WHEN ${CHAT} AND status = 'success' THEN latency_ms ELSE 0 END)`,
  latency_count: `SUM(CASE WHEN ${CHAT} AND status = 'success' THEN 1 ELSE 0 END)`,
  ttft_sum: `SUM(CASE WHEN ${CHAT} AND status = 'success' AND ttft_ms IS NOT NULL THEN ttft_ms ELSE 0 END)`,
  ttft_count: `SUM(CASE WHEN ${CHAT} AND status = 'success' AND ttft_ms IS NOT NULL THEN 1 ELSE 0 END)`,
  answered: `SUM(CASE WHEN ${CHAT} AND status = 'success' AND answered = 1 THEN 1 ELSE 0 END)`,
  answer_checked: `SUM(CASE WHEN ${CHAT} AND status = 'success' AND answered IS NOT NULL THEN 1 ELSE 0 END)`,
};

export function measureSql(source: UsageSource, measure: Measure): string {
  return source === 'raw' ? RAW_MEASURE_SQL[measure] : `SUM(${measure})`;
}

export interface UsageTotals {
  requests: number;
  errors: number;
  cancelled: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencySum: number;
  latencyCount: number;
  ttftSum: number;
  ttftCount: number;
  /** Successful replies answered from the knowledge base, and those for which it is known. */
  answered: number;
  answerChecked: number;
}

export function emptyTotals(): UsageTotals {
  return { requests: 0, errors: 0, cancelled: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, latencySum: 0, latencyCount: 0, ttftSum: 0, ttftCount: 0, answered: 0, answerChecked: 0 };
}

/** Reads the measure columns of a result row (pg returns SUM/COUNT of bigint as strings). */
export function totalsOfRow(row: Record<string, unknown>): UsageTotals {
  const n = (key: Measure) => Number(row[key] ?? 0) || 0;
  return {
    requests: n('requests'),
    errors: n('errors'),
    cancelled: n('cancelled'),
    promptTokens: n('prompt_tokens'),
    completionTokens: n('completion_tokens'),
    costUsd: n('cost_usd'),
    latencySum: n('latency_sum'),
    latencyCount: n('latency_count'),
    ttftSum: n('ttft_sum'),
    ttftCount: n('ttft_count'),
    answered: n('answered'),
    answerChecked: n('answer_checked'),
  };
}

export function addTotals(target: UsageTotals, source: UsageTotals): UsageTotals {
  target.requests += source.requests;
  target.errors += source.errors;
  target.cancelled += source.cancelled;
  target.promptTokens += source.promptTokens;
  target.completionTokens += source.completionTokens;
  target.costUsd += source.costUsd;
  target.latencySum += source.latencySum;
  target.latencyCount += source.latencyCount;
  target.ttftSum += source.ttftSum;
  target.ttftCount += source.ttftCount;
  target.answered += source.answered;
  target.answerChecked += source.answerChecked;
  return target;
}
