import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { queuedWrite } from '../database/write-queue';
import { UsageEvent } from './usage-event.entity';
import { newUsageEventId } from './usage-event-id';
import { UsageJournal } from './usage-journal';

export type NewUsageEvent = Omit<UsageEvent, 'id' | 'answered' | 'kind' | 'widgetId'> & { id?: string; answered?: boolean | null; kind?: UsageEvent['kind']; widgetId?: string | null };

/** Above this many events held in memory while the database is down, the oldest are left to the journal (and logged). */
const MAX_BUFFERED = 50_000;
const BATCH_SIZE = 500;
/**
 * A write that has not finished after this long (SQLite's one writer held by a large knowledge
 * write, a slow database) is journaled and acknowledged, so a reply never waits long for its
 * usage event; the write goes on and empties the journal when it lands.
 */
export const JOURNAL_AFTER_MS = 100;

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
  ['kind', 'varchar'],
  ['widget_id', 'varchar'],
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
    e.kind ?? 'chat',
    e.widgetId ?? null,
  ];
}

const COLUMN_LIST = INSERT_COLUMNS.map(([name]) => name).join(', ');

/**
 * One INSERT per batch with a fixed, short statement whatever the batch size: on SQLite the rows
 * travel as one JSON parameter read by json_each; on Postgres as one array per column, unnested.
 * (A VALUES list of 500 x 17 placeholders costs SQLite more to parse than to run.) An event
 * already stored is skipped (ON CONFLICT DO NOTHING), so a batch can be written again after a
 * write whose outcome was unknown, or replayed from the journal.
 */
function batchInsert(dialect: 'sqlite' | 'postgres', batch: UsageEvent[]): { sql: string; params: unknown[] } {
  const rows = batch.map(rowOf);
  if (dialect === 'sqlite') {
    return {
      sql: `INSERT INTO usage_events (${COLUMN_LIST}) SELECT ${INSERT_COLUMNS.map((_, i) => `value ->> ${i}`).join(', ')} FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING`,
      params: [JSON.stringify(rows)],
    };
  }
  return {
    sql: `INSERT INTO usage_events (${COLUMN_LIST}) SELECT * FROM unnest(${INSERT_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) ON CONFLICT (id) DO NOTHING`,
    params: INSERT_COLUMNS.map((_, i) => rows.map((row) => row[i])),
  };
}

interface Waiting {
  event: UsageEvent;
  stored: () => void;
}

/**
 * Records one usage event per LLM call, durably before the visitor gets the end of the reply:
 * `record()` resolves once the event is in the database, and the chat pipeline awaits it before
 * `chat:done` / the end of `/interact`. So a crash (kill -9) after a visitor got a reply never
 * loses its event, and a reply id the visitor holds is already stored when they rate it.
 *
 * Writes are group commits: an event arriving while no write runs is written at once (one
 * INSERT); events arriving during a write go together in the next one, so under load a batch
 * carries every chat that finished meanwhile (one INSERT per batch, up to 500 rows).
 *
 * A write still running after JOURNAL_AFTER_MS is journaled (one file append) and acknowledged
 * then: the reply goes out, the write lands later and the journal is emptied.
 *
 * When the database refuses the write (an outage), the events go to this server's journal file
 * (`DATA_DIR/usage-journal/`, one JSON line each, appended before `record()` resolves) and are
 * written again every `usageFlushMs` from memory; the journal is emptied once they are stored.
 * At start each server replays the journal files that no running process owns (a server killed
 * during an outage), skipping events already stored.
 */
@Injectable()
export class UsageRecorderService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(UsageRecorderService.name);
  /** Events waiting for the next group commit. */
  private queue: Waiting[] = [];
  /** Events journaled after a failed write, written again on a timer. */
  private retry: UsageEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** Batches acknowledged through the journal whose database write is still running. */
  private readonly slowWrites = new Set<{ events: UsageEvent[]; done: Promise<void> }>();
  /** Events were dropped from memory while the database was down: only the journal has them all. */
  private overflowed = false;
  private readonly listeners = new Set<(events: UsageEvent[]) => void>();
  private readonly journal: UsageJournal;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.journal = new UsageJournal(path.join(config.dataDir, 'usage-journal'));
  }

  async onModuleInit(): Promise<void> {
    const replayed = await this.journal.replayOrphans((events) => this.insert(events)).catch((error: Error) => {
      this.logger.warn(`Could not replay the usage journal: ${error.message}`);
      return 0;
    });
    if (replayed > 0) this.logger.log(`Replayed ${replayed} usage events from the journal of a server that stopped`);
  }

  /** Resolves once the event is stored (in the database, or in the journal when the database is down). Never rejects. */
  record(event: NewUsageEvent): Promise<void> {
    const stored = { ...event, id: event.id ?? newUsageEventId() } as UsageEvent;
    return new Promise<void>((resolve) => {
      this.queue.push({ event: stored, stored: resolve });
      void this.drain();
    });
  }

  /** Called after each successful write with the events written (live analytics hooks in here). */
  onWritten(listener: (events: UsageEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events not in the database yet (queued, or journaled after a failed write). */
  get pending(): number {
    let slow = 0;
    for (const w of this.slowWrites) slow += w.events.length;
    return this.queue.length + this.retry.length + slow;
  }

  /** Whether this server holds the event with this id, not written to the database yet. */
  holds(id: string): boolean {
    if (this.queue.some((w) => w.event.id === id) || this.retry.some((e) => e.id === id)) return true;
    for (const w of this.slowWrites) if (w.events.some((e) => e.id === id)) return true;
    return false;
  }

  /** Writes everything held now; resolves when it is stored (or the write failed and was kept). */
  async flush(): Promise<void> {
    await this.drain();
    await Promise.all([...this.slowWrites].map((w) => w.done));
    if (this.retry.length > 0) await this.writeRetries();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Group commit: one write at a time; whatever queued meanwhile goes in the next. */
  private drain(): Promise<void> {
    this.writing ??= (async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH_SIZE);
        const events = batch.map((w) => w.event);
        let slow = false;
        let timer: NodeJS.Timeout | undefined;
        const tooSlow = new Promise<'slow'>((resolve) => {
          timer = setTimeout(() => {
            slow = true;
            resolve('slow');
          }, JOURNAL_AFTER_MS);
        });
        const write = this.insert(events).then(
          () => true,
          // Journaled already when it was too slow: kept for the retry timer without a second line.
          (error: Error) => this.keepForRetry(events, error, !slow).then(() => false),
        );
        const first = await Promise.race([write.then(() => 'landed' as const), tooSlow]);
        clearTimeout(timer);
        if (first === 'slow') {
          // The next batch queues behind this write; the events are acknowledged once journaled.
          const entry = { events, done: Promise.resolve() };
          this.slowWrites.add(entry);
          const journaled = this.journal.append(events).catch((error: Error) => {
            this.logger.error(`Could not journal ${events.length} usage events during a slow write: ${error.message}`);
          });
          entry.done = write.then(async (landed) => {
            this.slowWrites.delete(entry);
            // Queued after the append (the journal runs its operations in turn).
            if (landed) await this.journal.clear(() => this.retry.length === 0 && !this.overflowed && this.slowWrites.size === 0).catch(() => undefined);
          });
          await journaled;
        }
        for (const w of batch) w.stored();
      }
    })().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async insert(events: UsageEvent[]): Promise<void> {
    const { sql, params } = batchInsert(dialectOf(this.dataSource), events);
    await queuedWrite(this.dataSource, () => this.dataSource.query(sql, params));
    for (const listener of this.listeners) listener(events);
  }

  private async keepForRetry(events: UsageEvent[], error: Error, journal = true): Promise<void> {
    // Held in memory first, so a journal clear queued meanwhile sees them and keeps the file.
    this.retry.push(...events);
    if (this.retry.length > MAX_BUFFERED) {
      const dropped = this.retry.splice(0, this.retry.length - MAX_BUFFERED);
      this.overflowed = true;
      this.logger.error(`Dropped ${dropped.length} usage events from memory (still in the journal): the database has been unavailable too long`);
    }
    try {
      if (journal) await this.journal.append(events);
    } catch (journalError) {
      this.logger.error(`Could not journal ${events.length} usage events (kept in memory only): ${(journalError as Error).message}`);
    }
    this.logger.warn(`Could not write ${events.length} usage events; journaled, will retry: ${error.message}`);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeRetries();
    }, this.config.usageFlushMs);
    this.timer.unref();
  }

  private async writeRetries(): Promise<void> {
    while (this.retry.length > 0) {
      const batch = this.retry.slice(0, BATCH_SIZE);
      try {
        await this.insert(batch);
      } catch {
        this.scheduleRetry();
        return;
      }
      this.retry.splice(0, batch.length);
    }
    try {
      if (this.overflowed) {
        // Memory dropped some: the journal has them all; store it again (stored ones are skipped).
        this.overflowed = false;
        await this.journal.replayOwn((events) => this.insert(events));
      } else {
        await this.journal.clear(() => this.retry.length === 0 && !this.overflowed && this.slowWrites.size === 0);
      }
    } catch (error) {
      this.overflowed = true;
      this.logger.warn(`Could not empty the usage journal; will try again: ${(error as Error).message}`);
      this.scheduleRetry();
    }
  }
}
