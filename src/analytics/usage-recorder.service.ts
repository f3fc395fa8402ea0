import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { queuedWrite } from '../database/write-queue';
import { UsageEvent } from './usage-event.entity';
import { newUsageEventId } from './usage-event-id';

export type NewUsageEvent = Omit<UsageEvent, 'id' | 'answered'> & { id?: string; answered?: boolean | null };

/** Above this many buffered events the oldest are dropped (and logged) while the database is down. */
const MAX_BUFFERED = 50_000;
const BATCH_SIZE = 500;

/** The columns of a usage event row with their Postgres types (for the unnest insert). */
const INSERT_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'varchar'],
  ['created_at', 'bigint'],
  ['request_id', 'varchar'],
  ['agent_id', 'varchar'],
  ['vertical', 'varchar'],
  ['provider', 'varchar'],
  ['model', 'varchar'],
  ['channel', 'varchar'],
  ['status', 'varchar'],
  ['error_code', 'varchar'],
  ['error_message', 'varchar'],
  ['prompt_tokens', 'bigint'],
  ['completion_tokens', 'bigint'],
  ['cost_usd', 'float8'],
  ['latency_ms', 'bigint'],
  ['ttft_ms', 'bigint'],
  ['language', 'varchar'],
  ['answered', 'smallint'],
];

function rowOf(e: UsageEvent): unknown[] {
  return [
    e.id,
    e.createdAt,
    e.requestId,
    e.agentId,
    e.vertical,
    e.provider,
    e.model,
    e.channel,
    e.status,
    e.errorCode ?? null,
    e.errorMessage ?? null,
    e.promptTokens,
    e.completionTokens,
    e.costUsd,
    e.latencyMs,
    e.ttftMs ?? null,
    e.language ?? null,
    e.answered === undefined || e.answered === null ? null : e.answered ? 1 : 0,
  ];
}

const COLUMN_LIST = INSERT_COLUMNS.map(([name]) => name).join(', ');

/**
 * One INSERT per batch with a fixed, short statement whatever the batch size: on SQLite the rows
 * travel as one JSON parameter read by json_each; on Postgres as one array per column, unnested.
 * (A VALUES list of 500 x 17 placeholders costs SQLite more to parse than to run.)
 */
function batchInsert(dialect: 'sqlite' | 'postgres', batch: UsageEvent[]): { sql: string; params: unknown[] } {
  const rows = batch.map(rowOf);
  if (dialect === 'sqlite') {
    return {
      sql: `INSERT INTO usage_events (${COLUMN_LIST}) SELECT ${INSERT_COLUMNS.map((_, i) => `value ->> ${i}`).join(', ')} FROM json_each(?)`,
      params: [JSON.stringify(rows)],
    };
  }
  return {
    sql: `INSERT INTO usage_events (${COLUMN_LIST}) SELECT * FROM unnest(${INSERT_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
    params: INSERT_COLUMNS.map((_, i) => rows.map((row) => row[i])),
  };
}

/**
 * Records one usage event per LLM call. Events are buffered and written in batches (one INSERT
 * per batch, with parameters) at most every `usageFlushMs`, so the chat path never waits on the database. A failed
 * write keeps the events for the next try; `flush()` at shutdown writes what is left.
 */
@Injectable()
export class UsageRecorderService implements OnModuleDestroy {
  private readonly logger = new Logger(UsageRecorderService.name);
  private buffer: UsageEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly listeners = new Set<(events: UsageEvent[]) => void>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  record(event: NewUsageEvent): void {
    this.buffer.push({ ...event, id: event.id ?? newUsageEventId() } as UsageEvent);
    if (this.buffer.length > MAX_BUFFERED) {
      const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
      this.logger.error(`Dropped ${dropped.length} usage events: the database has been unavailable too long`);
    }
    if (this.buffer.length >= BATCH_SIZE) void this.flush();
    else this.schedule();
  }

  /** Called after each successful write with the events written (live analytics hooks in here). */
  onWritten(listener: (events: UsageEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Writes everything buffered now; resolves when it is stored (or the write failed and was kept). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.config.usageFlushMs);
    this.timer.unref();
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, BATCH_SIZE);
      try {
        const { sql, params } = batchInsert(dialectOf(this.dataSource), batch);
        await queuedWrite(this.dataSource, () => this.dataSource.query(sql, params));
      } catch (error) {
        this.logger.warn(`Could not write ${batch.length} usage events; will retry: ${(error as Error).message}`);
        this.schedule();
        return;
      }
      this.buffer.splice(0, batch.length);
      for (const listener of this.listeners) listener(batch);
    }
  }
}
