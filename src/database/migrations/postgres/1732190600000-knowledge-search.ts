import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge search on Postgres: an inverted index with per-term postings, kept by statement-level
 * triggers on `knowledge_chunks`, in place of the GIN index on `tsv` (through which every search
 * unnested the tsvector of every matching chunk). See src/knowledge/postings-format.ts for the record formats
 * and the scoring.
 *
 * - knowledge_postings (term, block, data): term = a lexeme of the chunk's `tsv`; block = chunk
 *   id >> 10; data = a 6-byte header (the block's first chunk id) and 5-byte postings (offset in
 *   the block, title (weight A) and text (weight B) occurrences). PLAIN storage: a row holds at
 *   most 1024 postings (5 KiB), never toasted.
 * - knowledge_search_chunks (block, data): block = chunk id >> 10; data = 6-byte chunk records
 *   (offset, vertical code, `doc_len`).
 * - knowledge_search_stats (vertical, code, chunks, tokens, version): collection statistics per
 *   vertical (chunk count, sum of doc_len), `version` bumped with every change.
 *
 * The triggers run in the transaction that changes the chunks (the cascade from knowledge_items
 * included) and take a transaction-scoped advisory lock first, so writers of the index are
 * serialised and can never deadlock on its rows. The GIN index and the (vertical, doc_len) index
 * are dropped: nothing reads them any more (`tsv` and `doc_len` stay, the triggers read them).
 */
export class KnowledgeSearchPostgres1732190600000 implements MigrationInterface {
  name = 'KnowledgeSearchPostgres1732190600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('LOCK TABLE knowledge_chunks IN SHARE ROW EXCLUSIVE MODE');
    await q.query(`CREATE TABLE knowledge_search_stats (
      vertical varchar(40) PRIMARY KEY,
      code smallint NOT NULL UNIQUE CHECK (code BETWEEN 1 AND 127),
      chunks bigint NOT NULL,
      tokens bigint NOT NULL,
      version bigint NOT NULL
    )`);
    await q.query(`CREATE TABLE knowledge_postings (
      term text NOT NULL,
      block integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (term, block)
    )`);
    await q.query('ALTER TABLE knowledge_postings ALTER COLUMN data SET STORAGE PLAIN');
    await q.query(`CREATE TABLE knowledge_search_chunks (
      block integer PRIMARY KEY,
      data bytea NOT NULL
    )`);
    await q.query('ALTER TABLE knowledge_search_chunks ALTER COLUMN data SET STORAGE PLAIN');

    // The records of postings-format.ts. Offsets are id & 1023: 0x80 | offset >> 7, offset & 127. (Postgres
    // gives | << & the same precedence, left to right: every operation is parenthesised.)
    await q.query(`CREATE FUNCTION knowledge_search_header(block integer)
      RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT substring(int8send((192::bigint << 40) | ((((block::bigint << 10) >> 28) & 127) << 32)
                 | ((((block::bigint << 10) >> 21) & 127) << 24) | ((((block::bigint << 10) >> 14) & 127) << 16)
                 | ((((block::bigint << 10) >> 7) & 127) << 8) | ((block::bigint << 10) & 127)) FROM 3 FOR 6)
      $$`);
    await q.query(`CREATE FUNCTION knowledge_search_posting(id bigint, tf_title integer, tf_text integer)
      RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT substring(int8send(
                 ((128 | ((id & 1023) >> 7)) << 32) | ((id & 127) << 24) | (least(tf_title, 127)::bigint << 16)
                 | ((least(tf_text, 16383) >> 7)::bigint << 8) | (least(tf_text, 16383) & 127)::bigint
               ) FROM 4 FOR 5)
      $$`);
    await q.query(`CREATE FUNCTION knowledge_search_chunk(id bigint, code integer, dl integer)
      RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT substring(int8send(
                 ((128 | ((id & 1023) >> 7)) << 40) | ((id & 127) << 32) | ((code & 127)::bigint << 24)
                 | (((least(dl, 2097151) >> 14) & 127)::bigint << 16) | (((least(dl, 2097151) >> 7) & 127)::bigint << 8)
                 | (least(dl, 2097151) & 127)::bigint
               ) FROM 3 FOR 6)
      $$`);
    // The records without those of the chunks `ids` (a record starts at its only byte >= 0x80).
    await q.query(`CREATE FUNCTION knowledge_search_without(data bytea, ids bigint[], width integer)
      RETURNS bytea LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
        DECLARE
          chunk bigint;
          at integer;
        BEGIN
          FOREACH chunk IN ARRAY ids LOOP
            at := position(substring(knowledge_search_posting(chunk, 0, 0) FROM 1 FOR 2) IN data);
            IF at > 0 THEN
              data := overlay(data PLACING ''::bytea FROM at FOR width);
            END IF;
          END LOOP;
          RETURN data;
        END
      $$`);
    await q.query(`CREATE FUNCTION knowledge_search_index_chunks() RETURNS trigger
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(TG_TABLE_SCHEMA || '.knowledge_postings'));
          IF TG_OP = 'TRUNCATE' THEN
            DELETE FROM knowledge_postings;
            DELETE FROM knowledge_search_chunks;
            UPDATE knowledge_search_stats SET chunks = 0, tokens = 0, version = version + 1;
            RETURN NULL;
          END IF;
          IF TG_OP IN ('DELETE', 'UPDATE') THEN
            UPDATE knowledge_search_stats AS s
               SET chunks = s.chunks - d.n, tokens = s.tokens - d.len, version = s.version + 1
              FROM (SELECT vertical, count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM old_rows GROUP BY vertical) AS d
             WHERE s.vertical = d.vertical;
            UPDATE knowledge_search_chunks AS c SET data = knowledge_search_without(c.data, g.ids, 6)
              FROM (SELECT (id >> 10)::integer AS block, array_agg(id) AS ids FROM old_rows GROUP BY 1) AS g
             WHERE c.block = g.block;
            DELETE FROM knowledge_search_chunks
             WHERE octet_length(data) = 0 AND block IN (SELECT (id >> 10)::integer FROM old_rows);
            UPDATE knowledge_postings AS p SET data = knowledge_search_without(p.data, g.ids, 5)
              FROM (SELECT u.lexeme AS term, (o.id >> 10)::integer AS block, array_agg(o.id) AS ids
                      FROM old_rows AS o CROSS JOIN LATERAL unnest(o.tsv) AS u
                     GROUP BY 1, 2) AS g
             WHERE p.term = g.term AND p.block = g.block;
            DELETE FROM knowledge_postings AS p
             WHERE octet_length(p.data) <= 6
               AND (p.term, p.block) IN (SELECT u.lexeme, (o.id >> 10)::integer FROM old_rows AS o CROSS JOIN LATERAL unnest(o.tsv) AS u);
          END IF;
          IF TG_OP IN ('INSERT', 'UPDATE') THEN
            INSERT INTO knowledge_search_stats AS s (vertical, code, chunks, tokens, version)
              SELECT n.vertical, (SELECT coalesce(max(code), 0) FROM knowledge_search_stats) + row_number() OVER (ORDER BY n.vertical),
                     count(*), coalesce(sum(n.doc_len), 0), 1
                FROM new_rows AS n GROUP BY n.vertical
              ON CONFLICT (vertical) DO UPDATE
                SET chunks = s.chunks + excluded.chunks, tokens = s.tokens + excluded.tokens, version = s.version + 1;
            INSERT INTO knowledge_search_chunks AS c (block, data)
              SELECT (n.id >> 10)::integer, string_agg(knowledge_search_chunk(n.id, s.code, n.doc_len), ''::bytea ORDER BY n.id)
                FROM new_rows AS n JOIN knowledge_search_stats AS s ON s.vertical = n.vertical
               GROUP BY 1 ORDER BY 1
              ON CONFLICT (block) DO UPDATE SET data = c.data || excluded.data;
            INSERT INTO knowledge_postings AS p (term, block, data)
              SELECT u.lexeme, (n.id >> 10)::integer,
                     knowledge_search_header((n.id >> 10)::integer) || string_agg(knowledge_search_posting(n.id,
                                  coalesce(cardinality(array_positions(u.weights, 'A')), 0),
                                  coalesce(cardinality(u.weights), 0) - coalesce(cardinality(array_positions(u.weights, 'A')), 0)),
                                ''::bytea ORDER BY n.id)
                FROM new_rows AS n CROSS JOIN LATERAL unnest(n.tsv) AS u
               GROUP BY 1, 2
               ORDER BY 1, 2
              ON CONFLICT (term, block) DO UPDATE SET data = p.data || substring(excluded.data FROM 7);
          END IF;
          RETURN NULL;
        END
      $$`);

    // Index the chunks there are.
    await q.query(`INSERT INTO knowledge_search_stats (vertical, code, chunks, tokens, version)
      SELECT vertical, row_number() OVER (ORDER BY vertical), count(*), coalesce(sum(doc_len), 0), 1
        FROM knowledge_chunks GROUP BY vertical`);
    await q.query(`INSERT INTO knowledge_search_chunks (block, data)
      SELECT (c.id >> 10)::integer, string_agg(knowledge_search_chunk(c.id, s.code, c.doc_len), ''::bytea ORDER BY c.id)
        FROM knowledge_chunks AS c JOIN knowledge_search_stats AS s ON s.vertical = c.vertical
       GROUP BY 1`);
    await q.query(`INSERT INTO knowledge_postings (term, block, data)
      SELECT u.lexeme, (c.id >> 10)::integer,
             knowledge_search_header((c.id >> 10)::integer) || string_agg(knowledge_search_posting(c.id,
                          coalesce(cardinality(array_positions(u.weights, 'A')), 0),
                          coalesce(cardinality(u.weights), 0) - coalesce(cardinality(array_positions(u.weights, 'A')), 0)),
                        ''::bytea ORDER BY c.id)
        FROM knowledge_chunks AS c CROSS JOIN LATERAL unnest(c.tsv) AS u
       GROUP BY 1, 2`);

    await q.query(`CREATE TRIGGER knowledge_search_insert AFTER INSERT ON knowledge_chunks
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_search_index_chunks()`);
    await q.query(`CREATE TRIGGER knowledge_search_delete AFTER DELETE ON knowledge_chunks
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_search_index_chunks()`);
    await q.query(`CREATE TRIGGER knowledge_search_update AFTER UPDATE ON knowledge_chunks
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_search_index_chunks()`);
    await q.query(`CREATE TRIGGER knowledge_search_truncate AFTER TRUNCATE ON knowledge_chunks
      FOR EACH STATEMENT EXECUTE FUNCTION knowledge_search_index_chunks()`);

    await q.query('DROP INDEX IF EXISTS idx_knowledge_chunks_tsv');
    await q.query('DROP INDEX IF EXISTS idx_knowledge_chunks_vertical_doc_len');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_truncate ON knowledge_chunks');
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_update ON knowledge_chunks');
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_delete ON knowledge_chunks');
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_insert ON knowledge_chunks');
    await q.query('DROP FUNCTION IF EXISTS knowledge_search_index_chunks()');
    await q.query('DROP FUNCTION IF EXISTS knowledge_search_without(bytea, bigint[], integer)');
    await q.query('DROP FUNCTION IF EXISTS knowledge_search_chunk(bigint, integer, integer)');
    await q.query('DROP FUNCTION IF EXISTS knowledge_search_posting(bigint, integer, integer)');
    await q.query('DROP FUNCTION IF EXISTS knowledge_search_header(integer)');
    await q.query('DROP TABLE IF EXISTS knowledge_postings');
    await q.query('DROP TABLE IF EXISTS knowledge_search_chunks');
    await q.query('DROP TABLE IF EXISTS knowledge_search_stats');
    await q.query('CREATE INDEX IF NOT EXISTS idx_knowledge_chunks_vertical_doc_len ON knowledge_chunks (vertical, doc_len)');
    await q.query('CREATE INDEX IF NOT EXISTS idx_knowledge_chunks_tsv ON knowledge_chunks USING GIN (tsv)');
  }
}
