import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reads of a term's postings on Postgres without a heap page per row.
 *
 * A term has a knowledge_postings row per block of 1024 chunk ids it occurs in, and rows are
 * stored in the order they were first written, so a word found in 500 chunks across the
 * knowledge base has ~100 rows on ~100 different heap pages: a search for four such words read
 * ~300 pages through the primary key (measured on 100,000 chunks: 308 buffers, 1.4 ms when all
 * are cached, far more when the operating system has to read them).
 *
 * - knowledge_postings_small: rows of at most 1 KiB (99 % of them: a term with up to ~200
 *   postings in the block), covering their data, so they are read from a few consecutive index
 *   pages by an index-only scan (24 buffers, 0.2 ms for the same four words);
 * - knowledge_postings_large: the other rows (common terms' blocks), so they are found without
 *   looking at the small ones; their pages are full of the term's own postings anyway.
 *
 * The reads ask for both parts with the same size predicates (postgres-search-index.ts). The
 * primary key stays: the triggers write through it. SQLite needs nothing: its knowledge_postings
 * is a WITHOUT ROWID table, stored in (term, block) order.
 */
export class KnowledgePostingsReadsPostgres1732190700000 implements MigrationInterface {
  name = 'KnowledgePostingsReadsPostgres1732190700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX knowledge_postings_small ON knowledge_postings (term, block) INCLUDE (data) WHERE octet_length(data) <= 1024');
    await q.query('CREATE INDEX knowledge_postings_large ON knowledge_postings (term, block) WHERE octet_length(data) > 1024');
    // The planner needs statistics for the predicates (autovacuum sets the visibility map).
    await q.query('ANALYZE knowledge_postings');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS knowledge_postings_large');
    await q.query('DROP INDEX IF EXISTS knowledge_postings_small');
  }
}
