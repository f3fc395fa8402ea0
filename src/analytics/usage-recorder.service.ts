import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { queuedWrite } from '../database/write-queue';
import { UsageEvent } from './usage-event.entity';

export type NewUsageEvent = Omit<UsageEvent, 'id'> & { id?: string };

/** Above this many buffered events the oldest are dropped (and logged) while the database is down. */
const MAX_BUFFERED = 50_000;
const BATCH_SIZE = 500;

/**
 * Records one usage event per LLM call. Events are buffered and written in batches (one INSERT
 * per batch) at most every `usageFlushMs`, so the chat path never waits on the database. A failed
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
    this.buffer.push({ ...event, id: event.id ?? randomUUID() } as UsageEvent);
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
        await queuedWrite(this.dataSource, () => this.dataSource.createQueryBuilder().insert().into(UsageEvent).values(batch).execute());
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
