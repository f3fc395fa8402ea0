import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge base on Postgres: items, their chunks, and the full-text columns BM25 needs.
 *
 * - `tsv`: title words at weight A, body words at weight B (english stemming, positions kept), so
 *   the scorer can count title and body occurrences of a term separately. GIN-indexed.
 * - `doc_len`: words in title + text, the BM25 document length. Indexed with the vertical so the
 *   collection statistics (chunk count, average length) come from an index-only scan.
 * Both are generated columns: they can never disagree with the text they describe.
 */
export class KnowledgePostgres1732190100000 implements MigrationInterface {
  name = 'KnowledgePostgres1732190100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_items (
      id varchar(36) PRIMARY KEY,
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
      id serial PRIMARY KEY,
      item_id varchar(36) NOT NULL REFERENCES knowledge_items (id) ON DELETE CASCADE,
      ord integer NOT NULL,
      vertical varchar(40) NOT NULL,
      title varchar(200) NOT NULL,
      text text NOT NULL,
      token_count integer NOT NULL,
      doc_len integer GENERATED ALWAYS AS (
        coalesce(array_length(regexp_split_to_array(btrim(title || ' ' || text), '\\s+'), 1), 0)
      ) STORED,
      tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', text), 'B')
      ) STORED
    )`);
    await q.query('CREATE INDEX idx_knowledge_chunks_item_id ON knowledge_chunks (item_id, ord)');
    await q.query('CREATE INDEX idx_knowledge_chunks_vertical_doc_len ON knowledge_chunks (vertical, doc_len)');
    await q.query('CREATE INDEX idx_knowledge_chunks_tsv ON knowledge_chunks USING GIN (tsv)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS knowledge_chunks');
    await q.query('DROP TABLE IF EXISTS knowledge_items');
  }
}
