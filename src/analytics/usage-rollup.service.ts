/**
 * Fills usage_hourly (and the hourly latency histograms) from usage_events.
 *
 * - A repeatable job (`analytics-rollup`, every minute; BullMQ with REDIS_URL, so each tick runs
 *   once across all servers; in process otherwise) rolls up every hour that is final: it ended
 *   at least SETTLE before now, so no chat still running can add an event to it. The watermark
 *   `analytics.rollup.until` (settings table) is where the finalised hours end.
 * - An hour is always recomputed whole from the raw events, in one transaction (on Postgres under
 *   a transaction-scoped advisory lock, so two servers recomputing at once cannot interleave):
 *   its rows are replaced in place (upsert on the primary key hour, agent, vertical, provider,
 *   model) and groups without events any more are removed. Re-running any hour therefore gives
 *   the same rows, and the primary key makes a double count impossible.
 * - An event written after its hour was finalised (a server that kept events buffered through a
 *   database outage) queues a recompute of just that hour (`analytics-rollup-hour`).
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { portableSql } from '../database/sql';
import { writeTransaction } from '../database/write-queue';
import { describeError } from '../jobs/in-process-job-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import { AnalyticsClock } from './analytics-clock';
import { floorHour, HOUR_MS } from './analytics-window';
import { addToHistogram, Histogram, newHistogram, serializeHistogram } from './latency-histogram';
import type { UsageEvent } from './usage-event.entity';
import { MEASURES, measureSql, RAW_HOUR_SQL } from './usage-sql';

export const ROLLUP_JOB = 'analytics-rollup';
export const ROLLUP_HOUR_JOB = 'analytics-rollup-hour';
export const ROLLUP_EVERY_MS = 60_000;
export const ROLLUP_WATERMARK_KEY = 'analytics.rollup.until';
/** Changes with every recompute: readers may keep what they read from the rollups while it stays. */
export const ROLLUP_GENERATION_KEY = 'analytics.rollup.generation';
/** Hours recomputed per transaction while catching up. */
const HOURS_PER_TRANSACTION = 24;
const LATENCY_ROWS_PER_INSERT = 48;
/** At most this many hours per run (a year of history takes a few runs). */
const MAX_HOURS_PER_RUN = 24 * 90;
/** Any constant: the Postgres advisory lock key of rollup writes. */
const ADVISORY_LOCK_KEY = 727_274_101;

export interface RollupRunResult {
  /** Hours recomputed by this run. */
  hours: number;
  /** The watermark after the run (every hour before it is rolled up), if there is one. */
  rolledUntil?: number;
}

@Injectable()
export class UsageRollupService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('UsageRollup');
  private running: Promise<RollupRunResult> | undefined;
  private lastLateWarning = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: AnalyticsClock,
  ) {}

  /**
   * How long after its end an hour can still receive events: a chat's event carries its start
   * time and is written when it ends (chat time-out) and flushed (batch interval), plus a minute
   * for clocks of different servers.
   */
  get settleMs(): number {
    return this.config.chatTimeoutMs + 2 * this.config.usageFlushMs + 60_000;
  }

  onModuleInit(): void {
    this.jobs.register(ROLLUP_JOB, async () => {
      await this.run();
    });
    this.jobs.register<{ hourStart: number }>(ROLLUP_HOUR_JOB, async ({ hourStart }) => {
      await this.recompute(floorHour(hourStart), floorHour(hourStart) + HOUR_MS);
    });
  }

  onApplicationBootstrap(): void {
    void this.schedule();
  }

  /** Rolls up every final hour not rolled up yet. Safe to call at any time, from any server. */
  run(): Promise<RollupRunResult> {
    // One run at a time per server; concurrent runs on several servers are safe (see the header).
    this.running ??= this.catchUp().finally(() => (this.running = undefined));
    return this.running;
  }

  /** The watermark: every hour starting before it is rolled up. undefined before the first run. */
  async rolledUntil(): Promise<number | undefined> {
    return (await this.state()).rolledUntil;
  }

  /** The watermark and the generation of the rollups (which changes with every recompute), in one read. */
  async state(): Promise<{ rolledUntil?: number; generation: string }> {
    const rows: { key: string; value: string }[] = await this.dataSource.query(
      portableSql(this.dataSource, 'SELECT key, value FROM settings WHERE key IN ($1, $2)'),
      [ROLLUP_WATERMARK_KEY, ROLLUP_GENERATION_KEY],
    );
    const value = (key: string) => rows.find((r) => r.key === key)?.value;
    const until = value(ROLLUP_WATERMARK_KEY);
    return { rolledUntil: until === undefined ? undefined : Number(until), generation: value(ROLLUP_GENERATION_KEY) ?? '' };
  }

  /**
   * Recomputes the hours in [from, to) from the raw events, in one transaction; with
   * `advanceTo` the watermark moves there too (never backwards).
   */
  async recompute(from: number, to: number, advanceTo?: number): Promise<void> {
    if (to <= from && advanceTo === undefined) return;
    const sql = (text: string) => portableSql(this.dataSource, text);
    const key = 'hour_start, agent_id, vertical, provider, model';
    await writeTransaction(this.dataSource, async (manager) => {
      if (dialectOf(this.dataSource) === 'postgres') await manager.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEY]);
      // Reads first; then every write is one statement that replaces rows in place (upsert), so
      // a reader sharing SQLite's single connection between two statements never sees an hour
      // missing, and the generation changes last.
      const histograms = await this.histograms(manager, from, to);
      await manager.query(
        sql(`INSERT INTO usage_hourly (${key}, ${MEASURES.join(', ')})
             SELECT ${RAW_HOUR_SQL}, agent_id, vertical, provider, model, ${MEASURES.map((m) => measureSql('raw', m)).join(', ')}
               FROM usage_events
              WHERE created_at >= $1 AND created_at < $2
              GROUP BY 1, 2, 3, 4, 5
             ON CONFLICT (${key}) DO UPDATE SET ${MEASURES.map((m) => `${m} = excluded.${m}`).join(', ')}`),
        [from, to],
      );
      // Groups that no longer have events (none unless events were deleted).
      await manager.query(
        sql(`DELETE FROM usage_hourly
              WHERE hour_start >= $1 AND hour_start < $2
                AND NOT EXISTS (SELECT 1 FROM usage_events e
                                 WHERE e.created_at >= usage_hourly.hour_start AND e.created_at < usage_hourly.hour_start + ${HOUR_MS}
                                   AND e.agent_id = usage_hourly.agent_id AND e.vertical = usage_hourly.vertical
                                   AND e.provider = usage_hourly.provider AND e.model = usage_hourly.model)`),
        [from, to],
      );
      const hours = [...histograms];
      for (let i = 0; i < hours.length; i += LATENCY_ROWS_PER_INSERT) {
        const chunk = hours.slice(i, i + LATENCY_ROWS_PER_INSERT);
        await manager.query(
          sql(`INSERT INTO usage_hourly_latency (hour_start, latency_hist, ttft_hist)
               VALUES ${chunk.map((_, k) => `($${3 * k + 1}, $${3 * k + 2}, $${3 * k + 3})`).join(', ')}
               ON CONFLICT (hour_start) DO UPDATE SET latency_hist = excluded.latency_hist, ttft_hist = excluded.ttft_hist`),
          chunk.flatMap(([hourStart, h]) => [hourStart, serializeHistogram(h.latency), serializeHistogram(h.ttft)]),
        );
      }
      await manager.query(
        sql(`DELETE FROM usage_hourly_latency
              WHERE hour_start >= $1 AND hour_start < $2
                AND NOT EXISTS (SELECT 1 FROM usage_events e
                                 WHERE e.created_at >= usage_hourly_latency.hour_start AND e.created_at < usage_hourly_latency.hour_start + ${HOUR_MS}
                                   AND e.status = 'success' AND e.kind = 'chat')`),
        [from, to],
      );
      await manager.query(
        sql(`INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
        [ROLLUP_GENERATION_KEY, randomUUID(), Date.now()],
      );
      if (advanceTo !== undefined) {
        await manager.query(
          sql(`INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
               ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
               WHERE CAST(settings.value AS BIGINT) < CAST(excluded.value AS BIGINT)`),
          [ROLLUP_WATERMARK_KEY, String(advanceTo), Date.now()],
        );
      }
    });
  }

  /**
   * Called with each batch of written events (by the live feed): events of an hour that may
   * already be final queue a recompute of that hour.
   */
  async noteWritten(events: Pick<UsageEvent, 'createdAt'>[]): Promise<void> {
    // Hours starting before this are final (the run's target); the current hour never is. (It
    // was one hour later, so every batch of the current hour queued a recompute: a job a second
    // under traffic, and a warning per batch while Redis was down.)
    const finalBefore = floorHour(this.clock.now() - this.settleMs);
    const late = new Set<number>();
    for (const event of events) if (event.createdAt < finalBefore) late.add(floorHour(event.createdAt));
    // One job per late hour and second, started a second later: every event written in that
    // second is stored before its job reads the hour. (A job id is only de-duplicated while the
    // job is unfinished, and a running job may already have read the hour, hence the delay.)
    const second = Math.floor(Date.now() / 1000);
    for (const hourStart of late) {
      try {
        await this.jobs.enqueue(ROLLUP_HOUR_JOB, { hourStart }, { jobId: `hour-${hourStart}-${second}`, delayMs: 1000, attempts: 5, backoffMs: 5000 });
      } catch (error) {
        // At most a line a minute (a Redis outage fails every try; the next run of the rollup
        // job does not fix a late hour, but the next late event of that hour queues it again).
        const now = Date.now();
        if (now - this.lastLateWarning >= 60_000) {
          this.lastLateWarning = now;
          this.logger.warn(`Could not queue the rollup of a late hour (${new Date(hourStart).toISOString()}): ${describeError(error)}`);
        }
      }
    }
  }

  private async catchUp(): Promise<RollupRunResult> {
    const target = floorHour(this.clock.now() - this.settleMs);
    let from = await this.rolledUntil();
    if (from === undefined) {
      const rows: { first: string | number | null }[] = await this.dataSource.query('SELECT MIN(created_at) AS first FROM usage_events');
      const first = rows[0]?.first;
      from = first === null || first === undefined ? target : Math.min(target, floorHour(Number(first)));
      if (from === target) {
        // Nothing to roll up yet: record where rolled-up history starts.
        await this.recompute(target, target, target);
        return { hours: 0, rolledUntil: target };
      }
    }
    let hours = 0;
    while (from < target && hours < MAX_HOURS_PER_RUN) {
      const to = Math.min(target, from + HOURS_PER_TRANSACTION * HOUR_MS);
      await this.recompute(from, to, to);
      hours += (to - from) / HOUR_MS;
      from = to;
    }
    return { hours, rolledUntil: from };
  }

  private async histograms(manager: EntityManager, from: number, to: number): Promise<Map<number, { latency: Histogram; ttft: Histogram }>> {
    const byHour = new Map<number, { latency: Histogram; ttft: Histogram }>();
    const hour = (start: number) => {
      let entry = byHour.get(start);
      if (!entry) byHour.set(start, (entry = { latency: newHistogram(), ttft: newHistogram() }));
      return entry;
    };
    for (const [column, key] of [
      ['latency_ms', 'latency'],
      ['ttft_ms', 'ttft'],
    ] as const) {
      const rows: { h: string | number; v: string | number; n: string | number }[] = await manager.query(
        portableSql(
          this.dataSource,
          `SELECT ${RAW_HOUR_SQL} AS h, ${column} AS v, COUNT(*) AS n
             FROM usage_events
            WHERE created_at >= $1 AND created_at < $2 AND status = 'success' AND kind = 'chat' AND ${column} IS NOT NULL
            GROUP BY 1, 2`,
        ),
        [from, to],
      );
      for (const row of rows) addToHistogram(hour(Number(row.h))[key], Number(row.v), Number(row.n));
    }
    return byHour;
  }

  /**
   * Schedules the repeatable job. The queue remembers it and schedules it again whenever its
   * backend (re)connects, so a Redis that is down at start or restarted later needs nothing here.
   */
  private async schedule(): Promise<void> {
    try {
      await this.jobs.repeat(ROLLUP_JOB, ROLLUP_EVERY_MS, {});
    } catch (error) {
      this.logger.warn(`Could not schedule the usage rollup job now; it is scheduled when the job queue is back: ${describeError(error)}`);
    }
  }
}
