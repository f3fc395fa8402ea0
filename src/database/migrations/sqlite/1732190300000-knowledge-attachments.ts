import { MigrationInterface, QueryRunner } from 'typeorm';

/** Supporting documents of knowledge items, deleted with their item. */
export class KnowledgeAttachmentsSqlite1732190300000 implements MigrationInterface {
  name = 'KnowledgeAttachmentsSqlite1732190300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_attachments (
      id varchar(36) PRIMARY KEY NOT NULL,
      item_id varchar(36) NOT NULL REFERENCES knowledge_items (id) ON DELETE CASCADE,
      name varchar(255) NOT NULL,
      type varchar(100) NOT NULL,
      size bigint NOT NULL,
      content text NOT NULL,
      uploaded_at bigint NOT NULL,
      ord integer NOT NULL DEFAULT 0
    )`);
    await q.query('CREATE INDEX idx_knowledge_attachments_item_id ON knowledge_attachments (item_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE knowledge_attachments');
  }
}
