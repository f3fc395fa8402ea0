import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge base on SQLite: items, their chunks, and an FTS5 index over the chunks.
 *
 * The FTS5 table is "external content": it stores only the inverted index and reads title/text
 * back from knowledge_chunks by rowid (= knowledge_chunks.id, an INTEGER PRIMARY KEY AUTOINCREMENT,
 * so ids are stable across VACUUM and never reused). Triggers keep it in step, inside whatever
 * transaction changes the chunks, so a rolled-back write leaves no index entries behind. The
 * porter tokenizer stems both the indexed text and the MATCH query.
 */
export class KnowledgeSqlite1732190100000 implements MigrationInterface {
  name = 'KnowledgeSqlite1732190100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_items (
      id varchar(36) PRIMARY KEY NOT NULL,
      title varchar(200) NOT NULL,
      content text NOT NULL,
      category varchar(100) NOT NULL DEFAULT '',
      vertical varchar(40) NOT NULL,
      tags text NOT NULL DEFAULT '[]',
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
    await q.query('CREATE INDEX idx_knowledge_items_vertical_updated_at ON knowledge_items (vertical, updated_at)');
    await q.query('CREATE INDEX idx_knowledge_items_updated_at ON knowledge_items (updated_at)');

    await q.query(`CREATE TABLE knowledge_chunks (
      id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
      item_id varchar(36) NOT NULL REFERENCES knowledge_items (id) ON DELETE CASCADE,
      ord integer NOT NULL,
      vertical varchar(40) NOT NULL,
      title varchar(200) NOT NULL,
      text text NOT NULL,
      token_count integer NOT NULL
    )`);
    await q.query('CREATE INDEX idx_knowledge_chunks_item_id ON knowledge_chunks (item_id, ord)');
    await q.query('CREATE INDEX idx_knowledge_chunks_vertical ON knowledge_chunks (vertical)');

    await q.query(`CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(
      title, text,
      content='knowledge_chunks', content_rowid='id',
      tokenize='porter unicode61 remove_diacritics 2'
    )`);
    await q.query(`CREATE TRIGGER knowledge_chunks_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
      INSERT INTO knowledge_chunks_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
    END`);
    await q.query(`CREATE TRIGGER knowledge_chunks_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
      INSERT INTO knowledge_chunks_fts (knowledge_chunks_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
    END`);
    await q.query(`CREATE TRIGGER knowledge_chunks_fts_update AFTER UPDATE ON knowledge_chunks BEGIN
      INSERT INTO knowledge_chunks_fts (knowledge_chunks_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
      INSERT INTO knowledge_chunks_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
    END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_update');
    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_delete');
    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_insert');
    await q.query('DROP TABLE IF EXISTS knowledge_chunks_fts');
    await q.query('DROP TABLE IF EXISTS knowledge_chunks');
    await q.query('DROP TABLE IF EXISTS knowledge_items');
  }
}
