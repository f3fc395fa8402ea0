import { Controller, Get, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { z } from 'zod';
import { spanOf } from '../analytics/analytics-window';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { portableSql } from '../database/sql';
import { AnalyticsWindowQuerySchema } from '../shared/contracts/analytics';
import { HandoffAnalyticsSchema, type DurationSummary, type HandoffAnalytics } from '../shared/contracts/handoff';
import { ACCESS } from '../shared/contracts/roles';
import { HandoffClock } from './handoff-clock';

/** Handoffs read for one window at most (a bound, far above what a support team handles). */
const ROW_LIMIT = 100_000;
const GAP_LIMIT = 20;

interface Row {
  vertical: string;
  reason: string;
  question: string | null;
  gap_id: string | null;
  within_hours: string | number;
  requested_at: string | number;
  first_reply_at: string | number | null;
  resolved_at: string | number | null;
}

/** Mean, median and 95th percentile of durations in ms, as seconds. */
export function summarize(durationsMs: number[]): DurationSummary {
  if (durationsMs.length === 0) return { count: 0, meanSeconds: null, p50Seconds: null, p95Seconds: null };
  const sorted = [...durationsMs].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  return { count: sorted.length, meanSeconds: seconds(sorted.reduce((s, d) => s + d, 0) / sorted.length), p50Seconds: seconds(at(0.5)), p95Seconds: seconds(at(0.95)) };
}

/**
 * Analytics' handoff figures: handoffs per vertical and reason, time to the first human reply and
 * to resolve, and which knowledge gaps (questions the knowledge had no answer to) led to them.
 */
@Controller('api/analytics/handoffs')
export class HandoffAnalyticsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: HandoffClock,
  ) {}

  @Get()
  @Roles(...ACCESS.analyticsRead)
  @Contract({ summary: 'Handoffs to a person: per vertical and reason, time to the first human reply, time to resolve, the knowledge gaps that led to them', query: AnalyticsWindowQuerySchema, data: HandoffAnalyticsSchema })
  async get(@Query() query: z.output<typeof AnalyticsWindowQuerySchema>): Promise<{ success: true; data: HandoffAnalytics }> {
    const span = spanOf(query.hours, this.clock.now());
    const rows: Row[] = await this.dataSource.query(
      portableSql(this.dataSource, `SELECT vertical, reason, question, gap_id, within_hours, requested_at, first_reply_at, resolved_at FROM handoffs WHERE requested_at >= $1 AND requested_at <= $2 LIMIT ${ROW_LIMIT}`),
      [span.from, span.to],
    );
    const firstReply = (r: Row) => (r.first_reply_at === null ? undefined : Number(r.first_reply_at) - Number(r.requested_at));
    const resolved = (r: Row) => (r.resolved_at === null ? undefined : Number(r.resolved_at) - Number(r.requested_at));
    const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined);
    const verticals = new Map<string, Row[]>();
    const reasons = new Map<string, number>();
    const gaps = new Map<string, { gapId: string | null; vertical: string; question: string; handoffs: number }>();
    for (const r of rows) {
      verticals.set(r.vertical, [...(verticals.get(r.vertical) ?? []), r]);
      reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
      if (r.question) {
        const key = r.gap_id ?? `${r.vertical}\u0000${r.question.toLowerCase()}`;
        const gap = gaps.get(key) ?? { gapId: r.gap_id, vertical: r.vertical, question: r.question, handoffs: 0 };
        gap.handoffs += 1;
        gaps.set(key, gap);
      }
    }
    const data: HandoffAnalytics = {
      hours: query.hours,
      from: new Date(span.from).toISOString(),
      to: new Date(span.to).toISOString(),
      total: rows.length,
      outsideHours: rows.filter((r) => Number(r.within_hours) === 0).length,
      byVertical: [...verticals]
        .map(([vertical, list]) => ({
          vertical,
          handoffs: list.length,
          resolved: list.filter((r) => r.resolved_at !== null).length,
          firstHumanReply: summarize(defined(list.map(firstReply))),
          resolve: summarize(defined(list.map(resolved))),
        }))
        .sort((x, y) => y.handoffs - x.handoffs || x.vertical.localeCompare(y.vertical)),
      byReason: [...reasons].map(([reason, handoffs]) => ({ reason, handoffs })).sort((x, y) => y.handoffs - x.handoffs),
      firstHumanReply: summarize(defined(rows.map(firstReply))),
      resolve: summarize(defined(rows.map(resolved))),
      gaps: [...gaps.values()].sort((x, y) => y.handoffs - x.handoffs).slice(0, GAP_LIMIT),
    };
    return { success: true, data };
  }
}
