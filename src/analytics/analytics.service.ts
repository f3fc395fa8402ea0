/**
 * The figures of the analytics API. Each endpoint runs the
 * same grouped aggregate over the parts of its window (see analytics-window.ts): raw events for
 * the partial hours, hourly rollups for the finalised complete hours, then merges the parts.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { portableSql } from '../database/sql';
import type {
  AgentPerformanceRow,
  AnalyticsWindow,
  HourlyPerformancePoint,
  HourlyUsagePoint,
  LatencySummary,
  ModelCostRow,
  PerformanceAnalytics,
  RecentError,
  SystemAnalytics,
} from '../shared/contracts/analytics';
import { ConversationsService } from '../conversations/conversations.service';
import { AgentDirectory } from './agent-directory';
import { LimitedCounter } from './limited-counter.service';
import { AnalyticsClock } from './analytics-clock';
import { AnalyticsSpan, floorHour, hourBuckets, planSegments, spanOf, WindowSegment } from './analytics-window';
import { addPairs, addToHistogram, Histogram, newHistogram, parsePairs, percentile, percentileOfPairs } from './latency-histogram';
import { UsageRollupService } from './usage-rollup.service';
import {
  addTotals,
  DIMENSION_SQL,
  emptyTotals,
  MEASURES,
  Measure,
  measureSql,
  RAW_HOUR_SQL,
  TABLE,
  TIME_COLUMN,
  totalsOfRow,
  UsageDimension,
  UsageTotals,
} from './usage-sql';

const RECENT_ERRORS = 10;

export interface AnalyticsQueryOptions {
  /** false: aggregate every raw event of the window (the benchmark's and tests' reference). */
  useRollups?: boolean;
  /** false: read the rollups again even when this server has them (the benchmark's cold case). */
  cache?: boolean;
  /** Overrides "now" (tests and the benchmark). */
  now?: number;
}

interface Cell {
  dims: (string | number)[];
  totals: UsageTotals;
}

interface Plan {
  span: AnalyticsSpan;
  segments: WindowSegment[];
  /** The rollup generation read with the watermark; '' without rollups. */
  generation: string;
  cache: boolean;
}

/** Results of rollup queries kept per server while the rollups stay the same (see `rollupQuery`). */
const ROLLUP_CACHE_LIMIT = 500;

/** Dollars rounded to a millionth of a cent: sums of floats then compare equal across sources. */
function dollars(value: number): number {
  return Math.round(value * 1e8) / 1e8;
}

function mean(sum: number, count: number): number | null {
  return count > 0 ? Math.round((sum / count) * 10) / 10 : null;
}

/** part / whole to 4 decimals; null when whole is 0. */
function rate(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null;
}

@Injectable()
export class AnalyticsService {
  private readonly rollupCache = new Map<string, Promise<unknown[]>>();
  private rollupCacheGeneration = '';

  constructor(
    private readonly dataSource: DataSource,
    private readonly rollup: UsageRollupService,
    private readonly clock: AnalyticsClock,
    private readonly directory: AgentDirectory,
    private readonly conversations: ConversationsService,
    private readonly limited: LimitedCounter,
  ) {}

  async system(hours: AnalyticsWindow, options: AnalyticsQueryOptions = {}): Promise<SystemAnalytics> {
    const plan = await this.plan(hours, options);
    const measures: Measure[] = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cost_usd', 'answered', 'answer_checked'];
    const [byHourCells, byVerticalCells, requestsByChannel, recentErrors, conversations, limitedByRule] = await Promise.all([
      this.aggregate(plan, ['hour'], { measures }),
      this.aggregate(plan, ['vertical'], { measures: ['requests'] }),
      this.requestsByChannel(plan.span),
      this.recentErrors(plan.span),
      this.conversations.activity(plan.span.from, plan.span.to),
      this.limited.totals(plan.span.from, plan.span.to),
    ]);
    const totals = emptyTotals();
    const hourly = new Map<number, UsageTotals>(hourBuckets(plan.span).map((hour) => [hour, emptyTotals()]));
    for (const { dims, totals: t } of byHourCells) {
      addTotals(totals, t);
      addTotals(hourly.get(Number(dims[0]))!, t);
    }
    const requestsByVertical: Record<string, number> = {};
    for (const { dims, totals: t } of byVerticalCells) requestsByVertical[String(dims[0])] = t.requests;
    const series: HourlyUsagePoint[] = [...hourly].map(([hour, t]) => ({
      hour: new Date(hour).toISOString(),
      requests: t.requests,
      errors: t.errors,
      tokens: t.promptTokens + t.completionTokens,
      cost: dollars(t.costUsd),
    }));
    return {
      ...this.range(plan.span),
      totalRequests: totals.requests,
      totalErrors: totals.errors,
      totalTokensUsed: totals.promptTokens + totals.completionTokens,
      promptTokens: totals.promptTokens,
      completionTokens: totals.completionTokens,
      totalCost: dollars(totals.costUsd),
      requestsByVertical,
      requestsByChannel,
      recentErrors,
      hourly: series,
      answeredRate: rate(totals.answered, totals.answerChecked),
      conversations: conversations.conversations,
      messagesPerConversation: conversations.conversations > 0 ? conversations.messages / conversations.conversations : null,
      limitedRequests: { total: Object.values(limitedByRule).reduce((a, b) => a + b, 0), byRule: limitedByRule },
    };
  }

  async agents(hours: AnalyticsWindow, agentId?: string, options: AnalyticsQueryOptions = {}): Promise<AgentPerformanceRow[]> {
    const plan = await this.plan(hours, options);
    const [cells, feedback, names] = await Promise.all([this.aggregate(plan, ['agent'], { agentId }), this.feedback(plan.span, agentId), this.directory.names()]);
    return cells
      .map(({ dims, totals: t }): AgentPerformanceRow => {
        const id = String(dims[0]);
        const votes = feedback.get(id) ?? { up: 0, down: 0 };
        return {
          agentId: id,
          agentName: names.get(id) ?? id,
          totalRequests: t.requests,
          errorRate: t.requests > 0 ? t.errors / t.requests : 0,
          averageResponseTime: mean(t.latencySum, t.latencyCount),
          totalCost: dollars(t.costUsd),
          totalTokensUsed: t.promptTokens + t.completionTokens,
          helpfulRate: votes.up + votes.down > 0 ? votes.up / (votes.up + votes.down) : null,
          answeredRate: rate(t.answered, t.answerChecked),
          feedback: votes,
        };
      })
      .sort((a, b) => b.totalRequests - a.totalRequests || a.agentId.localeCompare(b.agentId));
  }

  async costs(hours: AnalyticsWindow, options: AnalyticsQueryOptions = {}): Promise<ModelCostRow[]> {
    const plan = await this.plan(hours, options);
    const cells = await this.aggregate(plan, ['provider', 'model'], { measures: ['requests', 'prompt_tokens', 'completion_tokens', 'cost_usd'] });
    return cells
      .map(({ dims, totals: t }) => ({
        provider: String(dims[0]),
        model: String(dims[1]),
        requestCount: t.requests,
        totalCost: dollars(t.costUsd),
        totalTokens: t.promptTokens + t.completionTokens,
      }))
      .sort((a, b) => b.totalCost - a.totalCost || b.requestCount - a.requestCount || `${a.provider}/${a.model}`.localeCompare(`${b.provider}/${b.model}`));
  }

  async performance(hours: AnalyticsWindow, options: AnalyticsQueryOptions = {}): Promise<PerformanceAnalytics> {
    const plan = await this.plan(hours, options);
    const measures: Measure[] = ['requests', 'errors', 'latency_sum', 'latency_count', 'ttft_sum', 'ttft_count'];
    const [cells, histograms] = await Promise.all([this.aggregate(plan, ['hour'], { measures }), this.histograms(plan)]);
    const byHour = new Map<number, UsageTotals>(hourBuckets(plan.span).map((hour) => [hour, emptyTotals()]));
    const totals = emptyTotals();
    for (const { dims, totals: t } of cells) {
      addTotals(totals, t);
      addTotals(byHour.get(Number(dims[0]))!, t);
    }
    const summary: LatencySummary = {
      totalRequests: totals.requests,
      successfulRequests: totals.latencyCount,
      errorRate: totals.requests > 0 ? totals.errors / totals.requests : 0,
      averageResponseTime: mean(totals.latencySum, totals.latencyCount),
      p50ResponseTime: percentile(histograms.latency, 50),
      p95ResponseTime: percentile(histograms.latency, 95),
      averageTimeToFirstToken: mean(totals.ttftSum, totals.ttftCount),
      p50TimeToFirstToken: percentile(histograms.ttft, 50),
      p95TimeToFirstToken: percentile(histograms.ttft, 95),
    };
    const hourly: HourlyPerformancePoint[] = [...byHour].map(([hour, t]) => {
      return {
        hour: new Date(hour).toISOString(),
        requests: t.requests,
        successfulRequests: t.latencyCount,
        averageResponseTime: mean(t.latencySum, t.latencyCount),
        p95ResponseTime: histograms.p95ByHour.get(hour) ?? null,
        averageTimeToFirstToken: mean(t.ttftSum, t.ttftCount),
      };
    });
    return { ...this.range(plan.span), summary, hourly };
  }

  async plan(hours: AnalyticsWindow, options: AnalyticsQueryOptions = {}): Promise<Plan> {
    const span = spanOf(hours, options.now ?? this.clock.now());
    const useRollups = options.useRollups ?? true;
    const state = useRollups ? await this.rollup.state() : { rolledUntil: undefined, generation: '' };
    return { span, segments: planSegments(span, state.rolledUntil, useRollups), generation: state.generation, cache: options.cache ?? true };
  }

  /**
   * Runs a query over rollup rows, reusing this server's earlier answer to the same query while
   * the rollup generation is unchanged. Every recompute (on any server) writes a new generation
   * in the same transaction, and each request reads the generation first, so an answer kept here
   * is never older than the rollups it was read from. A window's rollup part changes once an
   * hour (when it slides by an hour), so nearly every request is answered from here.
   */
  private rollupQuery<T>(plan: Plan, sql: string, params: unknown[]): Promise<T[]> {
    if (!plan.cache || plan.generation === '') return this.dataSource.query(sql, params);
    if (this.rollupCacheGeneration !== plan.generation) {
      this.rollupCache.clear();
      this.rollupCacheGeneration = plan.generation;
    }
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    let answer = this.rollupCache.get(key) as Promise<T[]> | undefined;
    if (!answer) {
      if (this.rollupCache.size >= ROLLUP_CACHE_LIMIT) this.rollupCache.clear();
      answer = this.dataSource.query(sql, params) as Promise<T[]>;
      this.rollupCache.set(key, answer);
      answer.catch(() => this.rollupCache.delete(key));
    }
    return answer;
  }

  private range(span: AnalyticsSpan) {
    return { hours: span.hours, from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() };
  }

  /** Sums the measures over the window grouped by `dims`, merging the window's parts. */
  private async aggregate(plan: Plan, dims: UsageDimension[], options: { agentId?: string; measures?: readonly Measure[] } = {}): Promise<Cell[]> {
    const { agentId, measures = MEASURES } = options;
    const parts = await Promise.all(
      plan.segments.map((segment) => {
        const source = segment.source;
        const params: unknown[] = [segment.from];
        let where = `${TIME_COLUMN[source]} >= $1`;
        if (segment.to !== undefined) {
          params.push(segment.to);
          where += ` AND ${TIME_COLUMN[source]} < $${params.length}`;
        }
        if (agentId !== undefined) {
          params.push(agentId);
          where += ` AND agent_id = $${params.length}`;
        }
        const columns = [...dims.map((d, i) => `${DIMENSION_SQL[d][source]} AS d${i}`), ...measures.map((m) => `${measureSql(source, m)} AS ${m}`)];
        const groupBy = dims.length > 0 ? ` GROUP BY ${dims.map((_, i) => i + 1).join(', ')}` : '';
        const sql = portableSql(this.dataSource, `SELECT ${columns.join(', ')} FROM ${TABLE[source]} WHERE ${where}${groupBy}`);
        return source === 'rollup' ? this.rollupQuery<Record<string, unknown>>(plan, sql, params) : (this.dataSource.query(sql, params) as Promise<Record<string, unknown>[]>);
      }),
    );
    const firstHour = floorHour(plan.span.from);
    const lastHour = floorHour(plan.span.to);
    const cells = new Map<string, Cell>();
    for (const rows of parts) {
      for (const row of rows) {
        const totals = totalsOfRow(row);
        if (totals.requests === 0) continue;
        const values = dims.map((d, i) => {
          const value = row[`d${i}`];
          // An event stamped just after "now" (a server clock slightly ahead) counts in the last hour.
          return d === 'hour' ? Math.min(lastHour, Math.max(firstHour, Number(value))) : String(value);
        });
        const key = values.join('\u0000');
        const cell = cells.get(key);
        if (cell) addTotals(cell.totals, totals);
        else cells.set(key, { dims: values, totals });
      }
    }
    return [...cells.values()];
  }

  /**
   * The window's latency and TTFT histograms of successful replies, and each hour's p95 latency.
   * Rollup hours come as stored histograms; the raw hours are counted here.
   */
  private async histograms(plan: Plan): Promise<{ latency: Histogram; ttft: Histogram; p95ByHour: Map<number, number | null> }> {
    const latency = newHistogram();
    const ttft = newHistogram();
    const p95ByHour = new Map<number, number | null>();
    const rawHours = new Map<number, Histogram>();
    const firstHour = floorHour(plan.span.from);
    const lastHour = floorHour(plan.span.to);
    const rawHour = (start: number) => {
      const clamped = Math.min(lastHour, Math.max(firstHour, start));
      let histogram = rawHours.get(clamped);
      if (!histogram) rawHours.set(clamped, (histogram = newHistogram()));
      return histogram;
    };
    const sql = (text: string) => portableSql(this.dataSource, text);
    await Promise.all(
      plan.segments.map(async (segment) => {
        const params: unknown[] = [segment.from];
        if (segment.to !== undefined) params.push(segment.to);
        if (segment.source === 'rollup') {
          const rows = await this.rollupQuery<{ hour_start: string | number; latency_hist: string; ttft_hist: string }>(
            plan,
            sql('SELECT hour_start, latency_hist, ttft_hist FROM usage_hourly_latency WHERE hour_start >= $1 AND hour_start < $2'),
            params,
          );
          for (const row of rows) {
            const pairs = parsePairs(row.latency_hist);
            p95ByHour.set(Number(row.hour_start), percentileOfPairs(pairs, 95));
            addPairs(latency, pairs);
            addPairs(ttft, parsePairs(row.ttft_hist));
          }
          return;
        }
        const range = `created_at >= $1${segment.to !== undefined ? ' AND created_at < $2' : ''} AND status = 'success' AND kind = 'chat'`;
        const [latencyRows, ttftRows] = await Promise.all([
          this.dataSource.query(sql(`SELECT ${RAW_HOUR_SQL} AS h, latency_ms AS v, COUNT(*) AS n FROM usage_events WHERE ${range} GROUP BY 1, 2`), params) as Promise<
            { h: string | number; v: string | number; n: string | number }[]
          >,
          this.dataSource.query(sql(`SELECT ttft_ms AS v, COUNT(*) AS n FROM usage_events WHERE ${range} AND ttft_ms IS NOT NULL GROUP BY 1`), params) as Promise<
            { v: string | number; n: string | number }[]
          >,
        ]);
        for (const row of latencyRows) addToHistogram(rawHour(Number(row.h)), Number(row.v), Number(row.n));
        for (const row of ttftRows) addToHistogram(ttft, Number(row.v), Number(row.n));
      }),
    );
    // Raw and rollup segments cover different hours, so each hour has one source.
    for (const [hour, histogram] of rawHours) {
      p95ByHour.set(hour, percentile(histogram, 95));
      for (let i = 0; i < histogram.length; i += 1) latency[i] += histogram[i];
    }
    return { latency, ttft, p95ByHour };
  }

  /**
   * The cost of the usage events stored in [start, end) (epoch ms) per agent and vertical: where
   * the budget ledger starts a month (limits/stored-spend.ts), read here because analytics owns
   * usage_events.
   */
  async spendByAgentAndVertical(start: number, end: number): Promise<{ agentId: string; vertical: string; usd: number }[]> {
    const rows: { vertical: string; agent_id: string; usd: string | number | null }[] = await this.dataSource.query(
      portableSql(this.dataSource, 'SELECT vertical, agent_id, SUM(cost_usd) AS usd FROM usage_events WHERE created_at >= $1 AND created_at < $2 GROUP BY vertical, agent_id'),
      [start, end],
    );
    return rows.map((row) => ({ agentId: row.agent_id, vertical: row.vertical, usd: Number(row.usd ?? 0) }));
  }

  /**
   * Replies per channel in the window, from the events themselves: the hourly rollups do not keep
   * the channel. An index range scan on created_at, like the widgets' counts.
   */
  private async requestsByChannel(span: AnalyticsSpan): Promise<Record<string, number>> {
    const rows = (await this.dataSource.query(
      portableSql(this.dataSource, `SELECT channel, COUNT(*) AS n FROM usage_events WHERE created_at >= $1 AND kind = 'chat' GROUP BY channel`),
      [span.from],
    )) as Array<{ channel: string; n: string | number }>;
    return Object.fromEntries(rows.map((row) => [row.channel, Number(row.n)]));
  }

  private async recentErrors(span: AnalyticsSpan): Promise<RecentError[]> {
    const [rows, names] = await Promise.all([
      this.dataSource.query(
        portableSql(
          this.dataSource,
          `SELECT created_at, agent_id, vertical, error_code, error_message FROM usage_events
            WHERE created_at >= $1 AND status = 'error' ORDER BY created_at DESC LIMIT ${RECENT_ERRORS}`,
        ),
        [span.from],
      ) as Promise<{ created_at: string | number; agent_id: string; vertical: string; error_code: string | null; error_message: string | null }[]>,
      this.directory.names(),
    ]);
    return rows.map((row) => ({
      agent: names.get(row.agent_id) ?? row.agent_id,
      agentId: row.agent_id,
      vertical: row.vertical,
      timestamp: new Date(Number(row.created_at)).toISOString(),
      error: row.error_message ?? row.error_code ?? 'Unknown error',
      code: row.error_code,
    }));
  }

  /** Thumbs up / down per agent for the replies of the window. */
  private async feedback(span: AnalyticsSpan, agentId?: string): Promise<Map<string, { up: number; down: number }>> {
    const params: unknown[] = [span.from];
    if (agentId !== undefined) params.push(agentId);
    const rows: { agent_id: string; up: string | number; down: string | number }[] = await this.dataSource.query(
      portableSql(
        this.dataSource,
        `SELECT agent_id, SUM(CASE WHEN vote = 'up' THEN 1 ELSE 0 END) AS up, SUM(CASE WHEN vote = 'down' THEN 1 ELSE 0 END) AS down
           FROM reply_feedback WHERE reply_created_at >= $1${agentId !== undefined ? ' AND agent_id = $2' : ''} GROUP BY agent_id`,
      ),
      params,
    );
    return new Map(rows.map((row) => [row.agent_id, { up: Number(row.up), down: Number(row.down) }]));
  }
}
