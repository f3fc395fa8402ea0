import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jurisdiction-scoped legal knowledge: an item's jurisdiction code and sub-region (both optional),
 * and on its chunks the two as one key (`US` or `US/California`), which a legal search filters on.
 * The partial index covers only chunks that have one (most have none).
 */
export class KnowledgeJurisdictionSqlite1732191400000 implements MigrationInterface {
  name = 'KnowledgeJurisdictionSqlite1732191400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE knowledge_items ADD COLUMN jurisdiction varchar(10)');
    await q.query('ALTER TABLE knowledge_items ADD COLUMN sub_region varchar(100)');
    await q.query('ALTER TABLE knowledge_chunks ADD COLUMN jurisdiction varchar(120)');
    await q.query('CREATE INDEX idx_knowledge_chunks_jurisdiction ON knowledge_chunks (vertical, jurisdiction) WHERE jurisdiction IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX idx_knowledge_chunks_jurisdiction');
    await q.query('ALTER TABLE knowledge_chunks DROP COLUMN jurisdiction');
    await q.query('ALTER TABLE knowledge_items DROP COLUMN sub_region');
    await q.query('ALTER TABLE knowledge_items DROP COLUMN jurisdiction');
  }
}
