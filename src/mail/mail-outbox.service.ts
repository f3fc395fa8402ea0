/**
 * The mail outbox. A feature writes its mail with `add(manager, ...)` inside its own transaction,
 * then calls `dispatch(id)` after the commit: the mail job (`mail.send`, on the job port: BullMQ
 * with REDIS_URL, in process otherwise) sends it with retries and exponential backoff.
 *
 * Nothing is lost when the queue is down: `dispatch` only logs the failure, and every server
 * sweeps the outbox every OUTBOX_SWEEP_MS (and once at start), re-enqueueing rows still pending.
 * The job id is the row id, so a row already queued is not queued twice, and the job claims the
 * row with a conditional UPDATE (a lease), so two servers never send the same mail at once.
 * Mail past its `expiresAt` is not sent; bodies are wiped once a row leaves `pending`; finished
 * rows are deleted after 7 days.
 */
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ServerSecret } from '../auth/server-secret';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { queuedWrite } from '../database/write-queue';
import { describeError } from '../jobs/in-process-job-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import { MailOutbox } from './mail-outbox.entity';
import { MAIL_TRANSPORT, MailTransport, OutgoingMail } from './mail.types';
import { decryptBody, encryptBody } from './outbox-cipher';

export const MAIL_JOB = 'mail.send';
/** 5 tries, 2 s apart doubling (2, 4, 8, 16 s); after that the sweep starts a new round. */
const JOB_OPTIONS = { attempts: 5, backoffMs: 2000 } as const;
const LEASE_MS = 60_000;
const KEEP_FINISHED_MS = 7 * 24 * 3600 * 1000;
const SWEEP_BATCH = 100;

export interface MailJobData {
  outboxId: string;
}

export interface AddMailOptions {
  /** What the mail is ('otp', ...). */
  kind: string;
  /** Not sent after this time (epoch ms). */
  expiresAt?: number;
  /** Pending mails of the same kind to the same address are superseded (not sent). */
  supersedePending?: boolean;
}

@Injectable()
export class MailOutboxService implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  private lastQueueWarning = 0;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(MailOutbox) private readonly outbox: Repository<MailOutbox>,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Inject(MAIL_TRANSPORT) private readonly transport: MailTransport,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secret: ServerSecret,
  ) {}

  onModuleInit(): void {
    this.jobs.register<MailJobData>(MAIL_JOB, (data) => this.deliver(data.outboxId), { concurrency: 4 });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.outboxSweepMs);
    this.timer.unref();
    void this.sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** Marks these mails superseded (not sent) if they are still pending, in the caller's transaction. */
  async supersede(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await manager
      .createQueryBuilder()
      .update(MailOutbox)
      .set({ status: 'superseded', payload: null, lockedUntil: null })
      .where('id IN (:...ids) AND status = :pending', { ids, pending: 'pending' })
      .execute();
  }

  /** Writes the mail to the outbox in the caller's transaction; returns the row id for `dispatch`. */
  async add(manager: EntityManager, mail: OutgoingMail, options: AddMailOptions): Promise<string> {
    const now = Date.now();
    if (options.supersedePending) {
      await manager
        .createQueryBuilder()
        .update(MailOutbox)
        .set({ status: 'superseded', payload: null, lockedUntil: null })
        .where('kind = :kind AND to_address = :to AND status = :pending', { kind: options.kind, to: mail.to, pending: 'pending' })
        .execute();
    }
    const id = randomUUID();
    await manager.insert(MailOutbox, {
      id,
      kind: options.kind,
      toAddress: mail.to,
      subject: mail.subject,
      payload: encryptBody(this.secret.key('mail-outbox'), id, { text: mail.text, html: mail.html }),
      status: 'pending',
      attempts: 0,
      lastError: null,
      createdAt: now,
      expiresAt: options.expiresAt ?? null,
      lockedUntil: null,
      sentAt: null,
    });
    return id;
  }

  /** Queues the send job for a committed outbox row. Never throws: if the queue is down, the sweep sends it later. */
  async dispatch(outboxId: string): Promise<void> {
    try {
      await this.jobs.enqueue<MailJobData>(MAIL_JOB, { outboxId }, { ...JOB_OPTIONS, jobId: outboxId });
    } catch (error) {
      this.warnQueue(`Mail ${outboxId} stays in the outbox until the job queue is back: ${describeError(error)}`);
    }
  }

  /** Re-enqueues pending mail, expires stale mail and deletes old finished rows. One sweep at a time per server. */
  sweep(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.sweeping ??= this.runSweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** The job: claim the row, send it, mark it sent (or release it and throw, so the job retries). */
  async deliver(outboxId: string): Promise<void> {
    const now = Date.now();
    const claim = await queuedWrite(this.dataSource, () =>
      this.outbox
        .createQueryBuilder()
        .update()
        .set({ lockedUntil: now + LEASE_MS, attempts: () => 'attempts + 1' })
        .where('id = :id AND status = :pending AND (locked_until IS NULL OR locked_until < :now)', { id: outboxId, pending: 'pending', now })
        .execute(),
    );
    if (!claim.affected) {
      this.logger.debug(`Mail ${outboxId} is sent, expired, superseded or being sent by another worker; skipped`);
      return;
    }
    const row = await this.outbox.findOneBy({ id: outboxId });
    if (!row || row.status !== 'pending') return;
    if (!row.payload || (row.expiresAt !== null && row.expiresAt <= now)) {
      await this.finish(outboxId, 'expired');
      this.logger.warn(`Mail ${outboxId} (${row.kind}) expired before it could be sent`);
      return;
    }
    const body = decryptBody(this.secret.key('mail-outbox'), outboxId, row.payload);
    try {
      await this.transport.send({ to: row.toAddress, subject: row.subject, ...body });
    } catch (error) {
      const message = describeError(error).slice(0, 500);
      await queuedWrite(this.dataSource, () =>
        this.outbox.update({ id: outboxId, status: 'pending' }, { lockedUntil: null, lastError: message }),
      );
      throw error;
    }
    await this.finish(outboxId, 'sent');
  }

  private async finish(outboxId: string, status: 'sent' | 'expired'): Promise<void> {
    await queuedWrite(this.dataSource, () =>
      this.outbox.update(
        { id: outboxId, status: 'pending' },
        { status, payload: null, lockedUntil: null, lastError: null, sentAt: status === 'sent' ? Date.now() : null },
      ),
    );
  }

  private async runSweep(): Promise<void> {
    try {
      const now = Date.now();
      await queuedWrite(this.dataSource, () =>
        this.outbox
          .createQueryBuilder()
          .update()
          .set({ status: 'expired', payload: null })
          .where('status = :pending AND expires_at IS NOT NULL AND expires_at <= :now AND (locked_until IS NULL OR locked_until < :now)', {
            pending: 'pending',
            now,
          })
          .execute(),
      );
      await queuedWrite(this.dataSource, () =>
        this.outbox
          .createQueryBuilder()
          .delete()
          .where('status <> :pending AND created_at < :before', { pending: 'pending', before: now - KEEP_FINISHED_MS })
          .execute(),
      );
      const pending = await this.outbox
        .createQueryBuilder('m')
        .select('m.id', 'id')
        .where('m.status = :pending AND (m.locked_until IS NULL OR m.locked_until < :now)', { pending: 'pending', now })
        .orderBy('m.created_at', 'ASC')
        .limit(SWEEP_BATCH)
        .getRawMany<{ id: string }>();
      for (const { id } of pending) {
        if (this.stopped) return;
        try {
          await this.jobs.enqueue<MailJobData>(MAIL_JOB, { outboxId: id }, { ...JOB_OPTIONS, jobId: id });
        } catch (error) {
          this.warnQueue(`Outbox sweep: ${pending.length} mail(s) wait for the job queue: ${describeError(error)}`);
          return;
        }
      }
    } catch (error) {
      if (!this.stopped) this.logger.warn(`Outbox sweep failed: ${describeError(error)}`);
    }
  }

  private warnQueue(message: string): void {
    const now = Date.now();
    if (now - this.lastQueueWarning < 60_000) return;
    this.lastQueueWarning = now;
    this.logger.warn(message);
  }
}
