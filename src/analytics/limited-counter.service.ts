import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { UsageChannel } from './usage-event.entity';
import { dialectOf } from '../database/data-source';
import { queuedWrite } from '../database/write-queue';
import type { LimitRule } from '../shared/contracts/limits';

const HOUR_MS = 3_600_000;
const FLUSH_MS = 1000;

/**
 * Counts requests a limit refused, per hour, rule and channel (table limited_hourly), for
 * Analytics. Counted in memory and added to the table once a second in one statement per row
 * (an upsert that adds, so every server adds to the same rows): a flood of refused requests costs
 * a few writes a second, not one per request.
 */
@Injectable()
export class LimitedCounter implements OnApplicationShutdown {
  private readonly logger = new Logger('Limits');
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  count(rule: LimitRule, channel: UsageChannel, now: number): void {
    const key = `${Math.floor(now / HOUR_MS) * HOUR_MS}|${rule}|${channel}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what was counted (tests call it to read the figures at once). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write(batch).finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** Refused requests in [from, to) by rule. */
  async totals(from: number, to: number): Promise<Record<string, number>> {
    await this.flush();
    const pg = dialectOf(this.dataSource) === 'postgres';
    const rows: { rule: string; n: string | number }[] = await this.dataSource.query(
      `SELECT rule, SUM(count) AS n FROM limited_hourly WHERE hour_start >= ${pg ? '$1' : '?'} AND hour_start < ${pg ? '$2' : '?'} GROUP BY rule`,
      [Math.floor(from / HOUR_MS) * HOUR_MS, to],
    );
    return Object.fromEntries(rows.map((r) => [r.rule, Number(r.n)]));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush().catch((error: unknown) => this.logger.warn(`Refused-request counts not stored at shutdown: ${(error as Error).message}`));
  }

  private async write(batch: Map<string, number>): Promise<void> {
    const pg = dialectOf(this.dataSource) === 'postgres';
    try {
      await queuedWrite(this.dataSource, async () => {
        for (const [key, n] of batch) {
          const [hour, rule, channel] = key.split('|');
          await this.dataSource.query(
            pg
              ? 'INSERT INTO limited_hourly (hour_start, rule, channel, count) VALUES ($1, $2, $3, $4) ON CONFLICT (hour_start, rule, channel) DO UPDATE SET count = limited_hourly.count + EXCLUDED.count'
              : 'INSERT INTO limited_hourly (hour_start, rule, channel, count) VALUES (?, ?, ?, ?) ON CONFLICT (hour_start, rule, channel) DO UPDATE SET count = count + excluded.count',
            [Number(hour), rule, channel, n],
          );
        }
      });
    } catch (error) {
      // Figures, not records: a database outage loses these counts rather than piling them up.
      this.logger.warn(`Refused-request counts not stored: ${(error as Error).message}`);
    }
  }
}
