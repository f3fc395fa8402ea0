import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A knowledge item whose chunks are being written in slices (SQLite only: a large item is
 * indexed in short transactions so the one writer is never held for long; see
 * KnowledgeService.indexInSlices). 1 until its last slice has committed; a server that starts
 * and finds it set indexes the item again. Postgres writes an item in one transaction (its
 * readers never wait on a writer), so it needs no such column.
 */
export class KnowledgeIndexPendingSqlite1732192300000 implements MigrationInterface {
  name = 'KnowledgeIndexPendingSqlite1732192300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE knowledge_items ADD COLUMN index_pending integer NOT NULL DEFAULT 0');
    await q.query('CREATE INDEX idx_knowledge_items_index_pending ON knowledge_items (index_pending) WHERE index_pending = 1');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX idx_knowledge_items_index_pending');
    await q.query('ALTER TABLE knowledge_items DROP COLUMN index_pending');
  }
}
