import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a usage event is: 'chat' (a reply: every event before this), 'rewrite' (a question
 * rewritten into the knowledge base's language for retrieval) or 'embedding' (texts embedded for
 * hybrid retrieval). Only chats count as requests; every kind counts in tokens and cost.
 */
export class UsageKindPostgres1732192000000 implements MigrationInterface {
  name = 'UsageKindPostgres1732192000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE usage_events ADD COLUMN kind varchar(10) NOT NULL DEFAULT 'chat'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE usage_events DROP COLUMN kind');
  }
}
