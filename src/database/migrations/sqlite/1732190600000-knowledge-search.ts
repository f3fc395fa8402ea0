import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge search on SQLite: an inverted index with per-term postings, kept by triggers, in
 * place of the FTS5 table `knowledge_chunks_fts` (whose bm25() scored and sorted every matching
 * chunk on every search). See src/knowledge/postings-format.ts for the record formats (bm25-scoring.ts for the scoring).
 *
 * - knowledge_postings (term, block, data): term = FTS5 porter stem; block = chunk id >> 7 (rows
 *   of at most 646 bytes: never an overflow page); data = a 6-byte header (the block's first
 *   chunk id) and 5-byte postings (offset in the block, title and text occurrences).
 * - knowledge_search_chunks (block, data): block = chunk id >> 10; data = 6-byte chunk records
 *   (offset, vertical code, document length = FTS5 tokens of title + text).
 * - knowledge_search_stats (vertical, code, chunks, tokens, version): collection statistics per
 *   vertical; `version` gets a new random value with every change, for the search's cache.
 * - knowledge_tokenizer: an empty contentless FTS5 table with the old tokenizer. A trigger puts
 *   the chunk in it, reads its tokens back through fts5vocab (`knowledge_tokenizer_tokens`) and
 *   empties it again, so the index holds exactly FTS5's tokens.
 *
 * The triggers run inside whatever statement changes `knowledge_chunks` (including the cascade
 * from knowledge_items), so the index commits or rolls back with the chunks.
 */
const POSTING_BLOCK_BITS = 7;
const CHUNK_BLOCK_BITS = 10;

/** The 2 bytes a record of chunk `id` starts with in a row of 2^bits ids (the first >= 0x80). */
function offsetHex(id: string, bits: number): string {
  return `printf('%02X%02X', 128 | ((${id} & ${(1 << bits) - 1}) >> 7), ${id} & 127)`;
}

/** The header of the postings row holding chunk `id` (0xC0, first chunk id of the block), as hex. */
function headerHex(id: string): string {
  const first = `((${id} >> ${POSTING_BLOCK_BITS}) << ${POSTING_BLOCK_BITS})`;
  return `printf('C0%02X%02X%02X%02X%02X', (${first} >> 28) & 127, (${first} >> 21) & 127, (${first} >> 14) & 127, (${first} >> 7) & 127, ${first} & 127)`;
}

/** A posting (postings-format.ts) as a blob. */
function posting(id: string, tft: string, tfx: string): string {
  return `unhex(${offsetHex(id, POSTING_BLOCK_BITS)} || printf('%02X%02X%02X', min(${tft}, 127), min(${tfx}, 16383) >> 7, min(${tfx}, 16383) & 127))`;
}

/** A chunk record (postings-format.ts) as a blob. */
function chunkRecord(id: string, code: string, dl: string): string {
  return `unhex(${offsetHex(id, CHUNK_BLOCK_BITS)} || printf('%02X%02X%02X%02X', ${code} & 127,
      (min(${dl}, 2097151) >> 14) & 127, (min(${dl}, 2097151) >> 7) & 127, min(${dl}, 2097151) & 127))`;
}

/** `data` without the record of `length` bytes starting with `pattern`. */
function cut(pattern: string, length: number): string {
  return `CAST(substr(data, 1, instr(data, ${pattern}) - 1) || substr(data, instr(data, ${pattern}) + ${length}) AS BLOB)`;
}

/** Statements adding `row` (new/old) to the index; the tokenizer must hold the row. */
function addRow(row: string): string {
  const tokens = '(SELECT count(*) FROM knowledge_tokenizer_tokens)';
  return `
    INSERT INTO knowledge_search_stats (vertical, code, chunks, tokens, version)
      VALUES (${row}.vertical, (SELECT coalesce(max(code), 0) + 1 FROM knowledge_search_stats), 1, ${tokens}, random())
      ON CONFLICT (vertical) DO UPDATE SET chunks = chunks + 1, tokens = tokens + excluded.tokens, version = excluded.version;
    INSERT INTO knowledge_search_chunks (block, data)
      VALUES (${row}.id >> ${CHUNK_BLOCK_BITS},
              ${chunkRecord(`${row}.id`, `(SELECT code FROM knowledge_search_stats WHERE vertical = ${row}.vertical)`, tokens)})
      ON CONFLICT (block) DO UPDATE SET data = CAST(data || excluded.data AS BLOB);
    INSERT INTO knowledge_postings (term, block, data)
      SELECT term, ${row}.id >> ${POSTING_BLOCK_BITS},
             CAST(unhex(${headerHex(`${row}.id`)}) || ${posting(`${row}.id`, "sum(col = 'title')", "sum(col = 'text')")} AS BLOB)
        FROM knowledge_tokenizer_tokens WHERE true GROUP BY term
      ON CONFLICT (term, block) DO UPDATE SET data = CAST(data || substr(excluded.data, 7) AS BLOB);`;
}

/** Statements removing `row` from the index; the tokenizer must hold the row. */
function removeRow(row: string): string {
  const inPostings = `unhex(${offsetHex(`${row}.id`, POSTING_BLOCK_BITS)})`;
  const inChunks = `unhex(${offsetHex(`${row}.id`, CHUNK_BLOCK_BITS)})`;
  return `
    UPDATE knowledge_search_stats
       SET chunks = chunks - 1, tokens = tokens - (SELECT count(*) FROM knowledge_tokenizer_tokens), version = random()
     WHERE vertical = ${row}.vertical;
    UPDATE knowledge_search_chunks SET data = ${cut(inChunks, 6)}
     WHERE block = ${row}.id >> ${CHUNK_BLOCK_BITS} AND instr(data, ${inChunks}) > 0;
    DELETE FROM knowledge_search_chunks WHERE block = ${row}.id >> ${CHUNK_BLOCK_BITS} AND length(data) = 0;
    UPDATE knowledge_postings SET data = ${cut(inPostings, 5)}
     WHERE block = ${row}.id >> ${POSTING_BLOCK_BITS} AND term IN (SELECT term FROM knowledge_tokenizer_tokens)
       AND instr(data, ${inPostings}) > 0;
    DELETE FROM knowledge_postings
     WHERE block = ${row}.id >> ${POSTING_BLOCK_BITS} AND term IN (SELECT term FROM knowledge_tokenizer_tokens) AND length(data) <= 6;`;
}

function tokenize(row: string): string {
  return `INSERT INTO knowledge_tokenizer (rowid, title, text) VALUES (${row}.id, ${row}.title, ${row}.text);`;
}

const EMPTY_TOKENIZER = `INSERT INTO knowledge_tokenizer (knowledge_tokenizer) VALUES ('delete-all');`;

export class KnowledgeSearchSqlite1732190600000 implements MigrationInterface {
  name = 'KnowledgeSearchSqlite1732190600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_search_stats (
      vertical varchar(40) PRIMARY KEY NOT NULL,
      code integer NOT NULL UNIQUE CHECK (code BETWEEN 1 AND 127),
      chunks integer NOT NULL,
      tokens integer NOT NULL,
      version integer NOT NULL
    )`);
    await q.query(`CREATE TABLE knowledge_postings (
      term text NOT NULL,
      block integer NOT NULL,
      data blob NOT NULL,
      PRIMARY KEY (term, block)
    ) WITHOUT ROWID`);
    await q.query(`CREATE TABLE knowledge_search_chunks (
      block integer PRIMARY KEY NOT NULL,
      data blob NOT NULL
    )`);
    await q.query(`CREATE VIRTUAL TABLE knowledge_tokenizer USING fts5(
      title, text, content='', tokenize='porter unicode61 remove_diacritics 2'
    )`);
    await q.query(`CREATE VIRTUAL TABLE knowledge_tokenizer_tokens USING fts5vocab(knowledge_tokenizer, 'instance')`);

    // Index the chunks there are, from the FTS5 index they are already in.
    await q.query(`CREATE VIRTUAL TABLE temp.knowledge_backfill_tokens USING fts5vocab(main, knowledge_chunks_fts, 'instance')`);
    await q.query(`CREATE TEMP TABLE knowledge_backfill_lengths AS
      SELECT doc AS id, count(*) AS dl FROM temp.knowledge_backfill_tokens GROUP BY doc`);
    await q.query(`INSERT INTO knowledge_search_stats (vertical, code, chunks, tokens, version)
      SELECT c.vertical, row_number() OVER (ORDER BY c.vertical), count(*), coalesce(sum(l.dl), 0), random()
        FROM knowledge_chunks c LEFT JOIN temp.knowledge_backfill_lengths l ON l.id = c.id
       GROUP BY c.vertical`);
    await q.query(`INSERT INTO knowledge_search_chunks (block, data)
      SELECT c.id >> ${CHUNK_BLOCK_BITS}, CAST(group_concat(${chunkRecord('c.id', 's.code', 'coalesce(l.dl, 0)')}, '' ORDER BY c.id) AS BLOB)
        FROM knowledge_chunks c
        JOIN knowledge_search_stats s ON s.vertical = c.vertical
        LEFT JOIN temp.knowledge_backfill_lengths l ON l.id = c.id
       GROUP BY c.id >> ${CHUNK_BLOCK_BITS}`);
    await q.query(`INSERT INTO knowledge_postings (term, block, data)
      SELECT t.term, t.doc >> ${POSTING_BLOCK_BITS},
             CAST(unhex(${headerHex('min(t.doc)')}) || group_concat(${posting('t.doc', 't.tft', 't.tfx')}, '' ORDER BY t.doc) AS BLOB)
        FROM (SELECT term, doc, sum(col = 'title') AS tft, sum(col = 'text') AS tfx
                FROM temp.knowledge_backfill_tokens GROUP BY term, doc) AS t
       GROUP BY t.term, t.doc >> ${POSTING_BLOCK_BITS}`);
    await q.query('DROP TABLE temp.knowledge_backfill_lengths');
    await q.query('DROP TABLE temp.knowledge_backfill_tokens');

    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_update');
    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_delete');
    await q.query('DROP TRIGGER IF EXISTS knowledge_chunks_fts_insert');
    await q.query('DROP TABLE IF EXISTS knowledge_chunks_fts');

    await q.query(`CREATE TRIGGER knowledge_search_insert AFTER INSERT ON knowledge_chunks BEGIN
      ${tokenize('new')}
      ${addRow('new')}
      ${EMPTY_TOKENIZER}
    END`);
    await q.query(`CREATE TRIGGER knowledge_search_delete AFTER DELETE ON knowledge_chunks BEGIN
      ${tokenize('old')}
      ${removeRow('old')}
      ${EMPTY_TOKENIZER}
    END`);
    await q.query(`CREATE TRIGGER knowledge_search_update AFTER UPDATE OF id, vertical, title, text ON knowledge_chunks BEGIN
      ${tokenize('old')}
      ${removeRow('old')}
      ${EMPTY_TOKENIZER}
      ${tokenize('new')}
      ${addRow('new')}
      ${EMPTY_TOKENIZER}
    END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_update');
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_delete');
    await q.query('DROP TRIGGER IF EXISTS knowledge_search_insert');
    await q.query('DROP TABLE IF EXISTS knowledge_tokenizer_tokens');
    await q.query('DROP TABLE IF EXISTS knowledge_tokenizer');
    await q.query('DROP TABLE IF EXISTS knowledge_postings');
    await q.query('DROP TABLE IF EXISTS knowledge_search_chunks');
    await q.query('DROP TABLE IF EXISTS knowledge_search_stats');

    // The FTS5 index of migration 1732190100000, rebuilt from the chunks.
    await q.query(`CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(
      title, text,
      content='knowledge_chunks', content_rowid='id',
      tokenize='porter unicode61 remove_diacritics 2'
    )`);
    await q.query(`INSERT INTO knowledge_chunks_fts (knowledge_chunks_fts) VALUES ('rebuild')`);
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
}
