/**
 * Writes conversation changes in batches, off the chat path: the pipeline hands over a turn's
 * start (after its first frame went out) and its end, and returns at once. Everything queued while
 * a write runs goes into the next one, a single transaction, so 100 replies finishing together
 * cost a few transactions rather than 100 (on SQLite they share one connection with every other
 * write); ops of a group (the turns' starts and ends) are written by a few set-based statements
 * per batch, whatever its size. A failed batch is retried op by op, in order (an op that keeps failing is dropped after
 * a few tries); while the database is down, ops wait in memory (bounded).
 *
 * A write that may wait (enqueue's deferMs) also waits while `hold()` says so (the server has
 * replies still waiting for their first frame: the write would compete with them for the CPU),
 * until release() or its own maxHoldMs at the latest; a write queued without delay, or flush(),
 * writes everything at once.
 */
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { writeTransaction } from '../database/write-queue';

export interface WriteOp {
  /** Runs inside the batch's transaction (alone, or when the batch is retried op by op). */
  run(manager: EntityManager): Promise<void>;
  /** Skipped when this says so at write time (the visitor deleted the conversation meanwhile). */
  skip?(): boolean;
  /** After the batch committed. */
  written?(): void;
  /**
   * Ops of one group in a batch are written together, by the group, where the first of them
   * stands in the queue (a few set-based statements for the lot instead of a few per op). When
   * the batch fails, each op is retried alone with `run`.
   */
  group?: WriteGroup;
}

export interface WriteGroup {
  runAll(manager: EntityManager, ops: WriteOp[]): Promise<void>;
}

interface Pending {
  op: WriteOp;
  tries: number;
  /** Settles the promise enqueue returned: stored, skipped or given up. */
  settle: () => void;
}

/**
 * The writer's time: a monotonic clock (ms) and one-shot timers. The service lends its
 * ConversationsClock's, so a test can move the hold's time by hand instead of waiting on it.
 */
export interface WriterTimers {
  now(): number;
  set(fire: () => void, ms: number, unref: boolean): unknown;
  clear(timer: unknown): void;
}

/** performance.now() and setTimeout. */
export const REAL_TIMERS: WriterTimers = {
  now: () => performance.now(),
  set: (fire, ms, unref) => {
    const timer = setTimeout(fire, ms);
    if (unref) timer.unref();
    return timer;
  },
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

const MAX_PENDING = 100_000;
const RETRY_MS = 1000;
const MAX_TRIES = 5;

export class ConversationWriter {
  private readonly logger = new Logger('Conversations');
  private pending: Pending[] = [];
  private running: Promise<void> | undefined;
  private timer: unknown;
  /** When the armed timer fires (timers.now()), and whether it is a retry after a failure. */
  private timerDue = Infinity;
  private timerIsRetry = false;
  /** When the most urgent op queued since the last write is due (see enqueue's deferMs). */
  private nextDue = Infinity;
  /** When the op queued since the last write that may be held least long must go, held or not. */
  private nextLatest = Infinity;
  /** The timer fired while hold() said so: release() writes. */
  private held = false;
  /** An op that may not wait was queued since the last write: hold() is not asked. */
  private urgent = false;
  private closed = false;

  /** `hold`: whether writes that may wait should wait longer (see the class comment). */
  constructor(
    private readonly dataSource: DataSource,
    private readonly hold: () => boolean = () => false,
    private readonly timers: WriterTimers = REAL_TIMERS,
  ) {}

  get size(): number {
    return this.pending.length;
  }

  /**
   * Queues a write; the promise resolves once it is stored (or skipped, or given up on). Never
   * rejects. `deferMs`: the write may wait that long for others to join its batch, and then on
   * while hold() says so, `maxHoldMs` after the call at the latest (it goes sooner with any write
   * queued without delay, and with flush()).
   */
  enqueue(op: WriteOp, deferMs = 0, maxHoldMs = deferMs): Promise<void> {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.pending.push({ op, tries: 0, settle });
    if (this.pending.length > MAX_PENDING) {
      const dropped = this.pending.splice(0, this.pending.length - MAX_PENDING);
      for (const entry of dropped) entry.settle();
      this.logger.error(`Dropped ${dropped.length} conversation writes: the database has been unavailable too long`);
    }
    const now = this.timers.now();
    this.nextDue = Math.min(this.nextDue, now + deferMs);
    this.nextLatest = Math.min(this.nextLatest, now + Math.max(deferMs, maxHoldMs));
    if (deferMs <= 0) this.urgent = true;
    this.schedule(false);
    return settled;
  }

  /** hold() no longer says so: writes it held go now. */
  release(): void {
    if (!this.held || this.running || this.timerIsRetry) return;
    this.held = false;
    this.arm(this.timers.now(), false);
  }

  /** Resolves once everything queued before the call is written (or has failed and waits for a retry). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.length === 0) return;
    await this.writeNext();
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    this.timers.clear(this.timer);
  }

  /** Arms the timer for the next write: when the most urgent queued op is due, or a retry after a failure. */
  private schedule(retry: boolean): void {
    // A retry waits its turn however urgent the new ops are (no busy loop while the database is away).
    if (this.running || this.closed || this.pending.length === 0 || this.timerIsRetry) return;
    const due = retry ? this.timers.now() + RETRY_MS : this.held && !this.urgent ? this.nextLatest : this.nextDue;
    if (this.timer && this.timerDue <= due) return;
    this.arm(due, retry);
  }

  private arm(due: number, retry: boolean): void {
    this.timers.clear(this.timer);
    this.timerDue = due;
    this.timerIsRetry = retry;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.timerDue = Infinity;
      this.timerIsRetry = false;
      // Due, but the server asks writes to wait: until release(), or the latest any of them may.
      if (!retry && !this.urgent && this.timers.now() < this.nextLatest && this.hold()) {
        this.held = true;
        this.arm(this.nextLatest, false);
        return;
      }
      void this.writeNext();
    }, Math.max(0, Math.ceil(due - this.timers.now())), retry);
  }

  private writeNext(): Promise<void> {
    if (this.running) return this.running;
    this.timers.clear(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
    this.timerIsRetry = false;
    this.held = false;
    this.urgent = false;
    const batch = this.pending;
    this.pending = [];
    this.nextDue = Infinity;
    this.nextLatest = Infinity;
    this.running = this.write(batch).finally(() => {
      this.running = undefined;
      if (this.pending.length > 0) this.schedule(this.pending.some((p) => p.tries > 0));
    });
    return this.running;
  }

  private async write(batch: Pending[]): Promise<void> {
    const live = batch.filter((entry) => {
      if (!entry.op.skip?.()) return true;
      entry.settle();
      return false;
    });
    if (live.length === 0) return;
    try {
      await writeTransaction(this.dataSource, async (manager) => {
        const groups = new Map<WriteGroup, WriteOp[]>();
        for (const { op } of live) {
          if (!op.group) continue;
          const ops = groups.get(op.group);
          if (ops) ops.push(op);
          else groups.set(op.group, [op]);
        }
        for (const { op } of live) {
          if (!op.group) await op.run(manager);
          else if (groups.get(op.group)?.[0] === op) await op.group.runAll(manager, groups.get(op.group)!);
        }
      });
      this.done(live);
      return;
    } catch {
      // Retried op by op below.
    }
    // One op failed the batch: each on its own, in order. The first that fails again waits for
    // a retry with everything after it (a turn's end is never written before its start).
    for (let i = 0; i < live.length; i += 1) {
      const entry = live[i];
      if (entry.op.skip?.()) {
        entry.settle();
        continue;
      }
      try {
        await writeTransaction(this.dataSource, (manager) => entry.op.run(manager));
        this.done([entry]);
      } catch (error) {
        entry.tries += 1;
        const rest = live.slice(i + 1);
        if (entry.tries >= MAX_TRIES) {
          entry.settle();
          this.logger.error(`A conversation write failed ${MAX_TRIES} times and was dropped: ${(error as Error).message}`);
        } else {
          this.logger.warn(`A conversation write failed; will retry: ${(error as Error).message}`);
          rest.unshift(entry);
        }
        this.pending.unshift(...rest);
        return;
      }
    }
  }

  private done(entries: Pending[]): void {
    for (const { op, settle } of entries) {
      settle();
      try {
        op.written?.();
      } catch (error) {
        this.logger.warn(`After a conversation write: ${(error as Error).message}`);
      }
    }
  }
}
