import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a reply was answered from the knowledge base (something cleared the relevance floor):
 * per usage event (1 / 0; NULL for events recorded before it was known), and per hourly rollup
 * the successful replies answered and those for which it is known.
 */
export class UsageAnsweredPostgres1732190800000 implements MigrationInterface {
  name = 'UsageAnsweredPostgres1732190800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE usage_events ADD COLUMN answered smallint');
    await q.query('ALTER TABLE usage_hourly ADD COLUMN answered bigint NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE usage_hourly ADD COLUMN answer_checked bigint NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE usage_hourly DROP COLUMN answer_checked');
    await q.query('ALTER TABLE usage_hourly DROP COLUMN answered');
    await q.query('ALTER TABLE usage_events DROP COLUMN answered');
  }
}
