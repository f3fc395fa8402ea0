import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Website import: an item's source URL (null for typed and uploaded items), which replies cite, and
 * the site imports themselves with their settings and crawl state (JSON), so an import resumes
 * after a restart and a re-sync knows each page's validators and content hash.
 */
export class SiteImportSqlite1732195100000 implements MigrationInterface {
  name = 'SiteImportSqlite1732195100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE knowledge_items ADD COLUMN source_url varchar(2000)');
    await q.query(`CREATE TABLE site_imports (
      id varchar(36) PRIMARY KEY NOT NULL,
      status varchar(20) NOT NULL,
      start_url varchar(2000) NOT NULL,
      options text NOT NULL,
      state text NOT NULL,
      heartbeat_at bigint NOT NULL DEFAULT 0,
      next_resync_at bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
    await q.query('CREATE INDEX idx_site_imports_status ON site_imports (status)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX idx_site_imports_status');
    await q.query('DROP TABLE site_imports');
    await q.query('ALTER TABLE knowledge_items DROP COLUMN source_url');
  }
}
