/**
 * Retention: visitors' conversations are deleted `conversationRetentionDays` (global setting,
 * default 90) after their last message, by a daily job on the job port (BullMQ with REDIS_URL, so
 * one server runs each day's purge; in process otherwise). Deleting a conversation deletes its
 * messages (and their search index entries); knowledge gaps last asked before then go too, and the
 * wording of gap questions asked before then. A first purge runs a minute after start, so a
 * server that was down on the day does not keep old conversations for another day.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentRegistryService } from '../agents/agent-registry.service';
import { changedRows } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { describeError } from '../jobs/in-process-job-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import { ConversationsClock } from './conversations-clock';
import { ConversationsService } from './conversations.service';
import { KnowledgeGapsService } from './knowledge-gaps.service';

export const PURGE_JOB = 'conversations-purge';
export const PURGE_EVERY_MS = 24 * 3_600_000;
const FIRST_PURGE_DELAY_MS = 60_000;
const DAY_MS = 86_400_000;
/** Conversations deleted per statement (a long backlog goes in several short transactions). */
const PURGE_BATCH = 500;

@Injectable()
export class ConversationRetentionService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('ConversationRetention');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly agents: AgentRegistryService,
    private readonly clock: ConversationsClock,
    private readonly gaps: KnowledgeGapsService,
    private readonly conversations: ConversationsService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(PURGE_JOB, async () => {
      await this.purge();
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.jobs.repeat(PURGE_JOB, PURGE_EVERY_MS, {});
      await this.jobs.enqueue(PURGE_JOB, {}, { delayMs: FIRST_PURGE_DELAY_MS, jobId: 'conversations-purge-at-start' });
    } catch (error) {
      this.logger.warn(`Could not schedule the conversation purge: ${describeError(error)}`);
    }
  }

  /** Deletes every conversation whose last message is older than the retention period; returns how many. */
  async purge(): Promise<number> {
    const days = this.agents.globalSettings().conversationRetentionDays;
    const before = this.clock.now() - days * DAY_MS;
    let total = 0;
    for (;;) {
      const deleted = await queuedWrite(this.dataSource, () =>
        changedRows(
          this.dataSource,
          `DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE updated_at < $1 ORDER BY updated_at LIMIT ${PURGE_BATCH})`,
          [before],
        ),
      );
      total += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    // The history a server keeps in memory (embedded mode) is read again.
    if (total > 0) this.conversations.forgetHistories();
    // Knowledge gaps keep visitors' wording: theirs ends with the same retention.
    const gaps = await this.gaps.purge(before);
    // So do the questions that led to handoffs (the handoffs stay counted, without the wording).
    await queuedWrite(this.dataSource, () => changedRows(this.dataSource, 'UPDATE handoffs SET question = NULL WHERE requested_at < $1 AND question IS NOT NULL', [before]));
    if (total > 0 || gaps > 0) this.logger.log(`Deleted ${total} conversations and ${gaps} knowledge gaps older than ${days} days`);
    return total;
  }
}
