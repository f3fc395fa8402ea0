/**
 * KnowledgeService against a real, migrated database: SQLite in a temp directory always, and
 * Postgres too when DATABASE_URL is set (each run in its own schema, dropped afterwards).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app-config';
import { dropPostgresSchema, openDataSource } from '../database/data-source';
import { FAQ_ITEMS, FAQ_QUESTIONS } from '../../test/fixtures/faq-corpus';
import { knowledgeServiceOn } from '../../test/support/standalone';
import { chunkContent } from './chunker';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import { KnowledgeItem } from './knowledge-item.entity';
import { KnowledgeError } from './knowledge.errors';
import { KnowledgeService } from './knowledge.service';
import { check, EARLIEST_DATE_MS } from '../shared/contracts/rules';
import { CheckedKnowledgeItem, KnowledgeItemInput, KnowledgeItemInputSchema } from '../shared/contracts/knowledge';
import { CHUNK_BLOCK_SIZE, CHUNK_BYTES, HEADER_BYTES, POSTING_BYTES } from './postings-format';
import { analyseQuery } from '../retrieval/query-terms';
import { createKnowledgeSearchIndex } from './search-index';
import { KnowledgeSearchPostgres1732190600000 } from '../database/migrations/postgres/1732190600000-knowledge-search';
import { KnowledgeSearchSqlite1732190600000 } from '../database/migrations/sqlite/1732190600000-knowledge-search';
import { KnowledgePostingsReadsPostgres1732190700000 } from '../database/migrations/postgres/1732190700000-knowledge-postings-reads';

type Dialect = 'sqlite' | 'postgres';
const DATABASE_URL = process.env.DATABASE_URL;
const DIALECTS: Dialect[] = DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

interface TestDatabase {
  dataSource: DataSource;
  close(): Promise<void>;
}

async function openTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'knowledge-spec-'));
  const schema = dialect === 'postgres' ? `knowledge_spec_${randomUUID().replace(/-/g, '').slice(0, 12)}` : undefined;
  const config = loadConfig(
    {},
    { dataDir, databaseUrl: dialect === 'postgres' ? DATABASE_URL : undefined, databaseSchema: schema, seedSampleKnowledge: false },
  );
  const dataSource = await openDataSource(config);
  return {
    dataSource,
    async close() {
      await dataSource.destroy();
      if (schema && DATABASE_URL) await dropPostgresSchema(DATABASE_URL, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A checked item, as the API hands it to the service (parsed with the knowledge item contract). */
function makeKnowledgeItem(overrides: Partial<KnowledgeItemInput> = {}): CheckedKnowledgeItem {
  return KnowledgeItemInputSchema.parse({
    title: 'Store opening hours',
    content: 'Our stores are open from 9 am to 6 pm, Monday to Saturday.',
    category: 'General',
    vertical: 'customer-service',
    tags: ['stores'],
    ...overrides,
  });
}

/** A long article: `paragraphs` paragraphs of ~60 words each, so it spans several chunks. */
function longContent(paragraphs: number, topicSentence: string): string {
  const filler = (p: number) =>
    `Paragraph ${p} explains the background of this arrangement in general terms for every reader. ` +
    'It mentions schedules, responsibilities, documents and the people involved in each of the steps. ' +
    'Nothing in it is specific to one case, and it avoids repeating the key words of the topic. ' +
    'Readers who need more detail are referred to the handbook and the team that owns the process.';
  return Array.from({ length: paragraphs }, (_, p) => (p % 3 === 0 ? `${topicSentence} ${filler(p)}` : filler(p))).join('\n\n');
}

async function expectKnowledgeError(promise: Promise<unknown>, code: KnowledgeError['code']): Promise<void> {
  await expect(promise).rejects.toBeInstanceOf(KnowledgeError);
  await expect(promise).rejects.toMatchObject({ code });
}

interface IndexContent {
  /** "code chunks tokens" per vertical with chunks. */
  stats: string[];
  /** "id code length" per chunk. */
  chunks: string[];
  /** "term id titleHits textHits" per posting. */
  postings: string[];
}

/** The search index as stored (knowledge_postings, knowledge_search_chunks, knowledge_search_stats), decoded. */
async function storedIndex(dataSource: DataSource, dialect: Dialect): Promise<IndexContent> {
  const hex = (column: string) => (dialect === 'sqlite' ? `hex(${column})` : `encode(${column}, 'hex')`);
  const blockBits = dialect === 'sqlite' ? 7 : 10;
  const records = (data: Buffer, width: number, first: number, each: (id: number, o: number) => void): void => {
    expect(data.length).toBeGreaterThan(0);
    expect(data.length % width).toBe(0);
    for (let o = 0; o < data.length; o += width) {
      expect(data[o] & 0xf8).toBe(0x80);
      for (let i = 1; i < width; i++) expect(data[o + i]).toBeLessThan(0x80);
      each(first + (((data[o] & 0x07) << 7) | data[o + 1]), o);
    }
  };
  const postings: string[] = [];
  for (const row of await dataSource.query(`SELECT term, block, ${hex('data')} AS data FROM knowledge_postings`)) {
    const first = Number(row.block) * 2 ** blockBits;
    const header = Buffer.from(row.data.slice(0, 2 * HEADER_BYTES), 'hex');
    expect([...header]).toEqual([0xc0, Math.floor(first / 2 ** 28) & 127, (first >> 21) & 127, (first >> 14) & 127, (first >> 7) & 127, first & 127]);
    const data = Buffer.from(row.data.slice(2 * HEADER_BYTES), 'hex');
    records(data, POSTING_BYTES, first, (id, o) => {
      expect(Math.floor(id / 2 ** blockBits)).toBe(Number(row.block));
      postings.push(`${row.term} ${id} ${data[o + 2]} ${(data[o + 3] << 7) | data[o + 4]}`);
    });
  }
  const chunks: string[] = [];
  for (const row of await dataSource.query(`SELECT block, ${hex('data')} AS data FROM knowledge_search_chunks`)) {
    const data = Buffer.from(row.data, 'hex');
    records(data, CHUNK_BYTES, Number(row.block) * CHUNK_BLOCK_SIZE, (id, o) => {
      chunks.push(`${id} ${data[o + 2]} ${(data[o + 3] << 14) | (data[o + 4] << 7) | data[o + 5]}`);
    });
  }
  const stats: { code: number; chunks: number; tokens: number }[] = await dataSource.query(
    `SELECT code, chunks, tokens FROM knowledge_search_stats WHERE chunks <> 0 OR tokens <> 0`,
  );
  return { stats: stats.map((s) => `${s.code} ${s.chunks} ${s.tokens}`).sort(), chunks: chunks.sort(), postings: postings.sort() };
}

/** The same, computed from scratch from knowledge_chunks with the engine's own tokenizer. */
async function expectedIndex(dataSource: DataSource, dialect: Dialect): Promise<IndexContent> {
  let postings: { term: string; id: number; tft: number; tfx: number }[];
  let chunks: { id: number; code: number; dl: number }[];
  if (dialect === 'sqlite') {
    await dataSource.query(`CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_check_fts USING fts5(title, text,
      content='knowledge_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`);
    await dataSource.query(`CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_check_tokens USING fts5vocab(knowledge_check_fts, 'instance')`);
    try {
      await dataSource.query(`INSERT INTO knowledge_check_fts (knowledge_check_fts) VALUES ('rebuild')`);
      postings = await dataSource.query(
        `SELECT term, doc AS id, sum(col = 'title') AS tft, sum(col = 'text') AS tfx FROM knowledge_check_tokens GROUP BY term, doc`,
      );
      chunks = await dataSource.query(
        `SELECT c.id, s.code, coalesce(l.dl, 0) AS dl
           FROM knowledge_chunks c JOIN knowledge_search_stats s ON s.vertical = c.vertical
           LEFT JOIN (SELECT doc, count(*) AS dl FROM knowledge_check_tokens GROUP BY doc) l ON l.doc = c.id`,
      );
    } finally {
      await dataSource.query('DROP TABLE IF EXISTS knowledge_check_tokens');
      await dataSource.query('DROP TABLE IF EXISTS knowledge_check_fts');
    }
  } else {
    postings = await dataSource.query(
      `SELECT u.lexeme AS term, c.id,
              coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tft,
              cardinality(u.weights) - coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tfx
         FROM knowledge_chunks c CROSS JOIN LATERAL unnest(c.tsv) u`,
    );
    chunks = await dataSource.query(
      `SELECT c.id, s.code, c.doc_len AS dl FROM knowledge_chunks c JOIN knowledge_search_stats s ON s.vertical = c.vertical`,
    );
  }
  const byCode = new Map<number, { n: number; tokens: number }>();
  for (const c of chunks) {
    const entry = byCode.get(Number(c.code)) ?? { n: 0, tokens: 0 };
    entry.n += 1;
    entry.tokens += Number(c.dl);
    byCode.set(Number(c.code), entry);
  }
  return {
    stats: [...byCode].map(([code, e]) => `${code} ${e.n} ${e.tokens}`).sort(),
    chunks: chunks.map((c) => `${c.id} ${c.code} ${c.dl}`).sort(),
    postings: postings.map((p) => `${p.term} ${p.id} ${p.tft} ${p.tfx}`).sort(),
  };
}

/** No chunk without its item, and the search index holds exactly the chunks there are. */
async function expectIndexConsistentIn(dataSource: DataSource, dialect: Dialect): Promise<void> {
  const [{ orphans }] = await dataSource.query(
    `SELECT count(*) AS orphans FROM knowledge_chunks c LEFT JOIN knowledge_items i ON i.id = c.item_id WHERE i.id IS NULL`,
  );
  expect(Number(orphans)).toBe(0);
  const expected = await expectedIndex(dataSource, dialect);
  const actual = await storedIndex(dataSource, dialect);
  expect(actual.stats).toEqual(expected.stats);
  expect(actual.chunks).toEqual(expected.chunks);
  expect(actual.postings.length).toBe(expected.postings.length);
  expect(actual.postings).toEqual(expected.postings);
}

/**
 * BM25 of every chunk matching any of `words`, computed the way search used to: FTS5's bm25() on
 * SQLite (over a scratch FTS5 table `knowledge_ref_fts` the caller creates), the unnest(tsv)
 * scorer on Postgres.
 */
async function referenceScores(dataSource: DataSource, dialect: Dialect, words: string[], vertical?: string): Promise<Map<number, number>> {
  if (words.length === 0) return new Map();
  let rows: { id: number; score: number }[];
  if (dialect === 'sqlite') {
    rows = await dataSource.query(
      `SELECT f.rowid AS id, -bm25(knowledge_ref_fts, 4, 1.0) AS score
         FROM knowledge_ref_fts f JOIN knowledge_chunks c ON c.id = f.rowid
        WHERE knowledge_ref_fts MATCH ? ${vertical ? 'AND c.vertical = ?' : ''}`,
      [words.map((w) => `"${w}"`).join(' OR '), ...(vertical ? [vertical] : [])],
    );
  } else {
    const lexemes: string[] = (
      await dataSource.query(
        `SELECT DISTINCT l.lexeme FROM unnest($1::text[]) AS t(word) CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', t.word))) AS l(lexeme)`,
        [words],
      )
    ).map((r: { lexeme: string }) => r.lexeme);
    if (lexemes.length === 0) return new Map();
    const scope = vertical ? `vertical = $3` : 'true';
    rows = await dataSource.query(
      `WITH cand AS (SELECT c.id, c.doc_len, c.tsv FROM knowledge_chunks c WHERE c.tsv @@ $2::tsquery AND ${scope}),
       hits AS (
         SELECT cand.id, cand.doc_len, u.lexeme,
                coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tf_title,
                coalesce(cardinality(u.weights), 0) - coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tf_text
           FROM cand CROSS JOIN LATERAL unnest(cand.tsv) AS u WHERE u.lexeme = ANY ($1::text[])),
       df AS (SELECT lexeme, count(*)::float8 AS n_hit FROM hits GROUP BY lexeme),
       stats AS (SELECT count(*)::float8 AS n, greatest(coalesce(avg(doc_len), 1), 1)::float8 AS avgdl FROM knowledge_chunks WHERE ${scope})
       SELECT h.id, sum(ln(1 + (s.n - d.n_hit + 0.5) / (d.n_hit + 0.5)) * ((h.tf_title * 4 + h.tf_text) * 2.2)
                        / ((h.tf_title * 4 + h.tf_text) + 1.2 * (1 - 0.75 + 0.75 * h.doc_len / s.avgdl)))::float8 AS score
         FROM hits h JOIN df d USING (lexeme) CROSS JOIN stats s GROUP BY h.id`,
      [lexemes, lexemes.map((l) => `'${l.replace(/'/g, "''")}'`).join(' | '), ...(vertical ? [vertical] : [])],
    );
  }
  return new Map(rows.map((r) => [Number(r.id), Number(r.score)]));
}

/** What search(q, {limit}) must return: own words' BM25 + 0.5 x the related words' BM25, best first. */
async function expectedSearch(dataSource: DataSource, dialect: Dialect, question: string, limit: number, vertical?: string): Promise<{ id: number; score: number }[]> {
  const { terms, expansions } = analyseQuery(question);
  const own = await referenceScores(dataSource, dialect, terms, vertical);
  const related = await referenceScores(dataSource, dialect, expansions.map((e) => e.term), vertical);
  const total = new Map(own);
  for (const [id, score] of related) total.set(id, (total.get(id) ?? 0) + 0.5 * score);
  return [...total]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}

/** Searches every FAQ question (all verticals, 10 and 200 results; its vertical, 5) and compares with expectedSearch. */
async function expectSearchesLikeReference(dataSource: DataSource, dialect: Dialect, service: KnowledgeService): Promise<number> {
  if (dialect === 'sqlite') {
    await dataSource.query(`CREATE VIRTUAL TABLE knowledge_ref_fts USING fts5(title, text,
      content='knowledge_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`);
    await dataSource.query(`INSERT INTO knowledge_ref_fts (knowledge_ref_fts) VALUES ('rebuild')`);
  }
  try {
    let compared = 0;
    for (const q of FAQ_QUESTIONS) {
      for (const [limit, vertical] of [[10, undefined], [200, undefined], [5, q.vertical]] as const) {
        const expected = await expectedSearch(dataSource, dialect, q.question, limit, vertical);
        const actual = await service.search(q.question, { limit, vertical });
        expect(actual.map((p) => p.chunkId)).toEqual(expected.map((e) => e.id));
        actual.forEach((p, i) => expect(p.score).toBeCloseTo(expected[i].score, 9));
        compared += actual.length;
      }
    }
    return compared;
  } finally {
    if (dialect === 'sqlite') await dataSource.query('DROP TABLE IF EXISTS knowledge_ref_fts');
  }
}

describe.each(DIALECTS)('KnowledgeService on %s', (dialect) => {
  let db: TestDatabase;
  let service: KnowledgeService;

  const chunkRows = (itemId?: string): Promise<KnowledgeChunk[]> =>
    db.dataSource.getRepository(KnowledgeChunk).find({ where: itemId ? { itemId } : {}, order: { ord: 'ASC' } });

  const expectIndexConsistent = (): Promise<void> => expectIndexConsistentIn(db.dataSource, dialect);

  beforeAll(async () => {
    db = await openTestDatabase(dialect);
    service = knowledgeServiceOn(db.dataSource);
  });

  afterAll(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.dataSource.query('DELETE FROM knowledge_chunks');
    await db.dataSource.query('DELETE FROM knowledge_items');
  });

  describe('writes', () => {
    it('creates an item with a uuid and timestamps and indexes its chunks', async () => {
      const content = longContent(9, 'Parking permits are issued by the facilities team.');
      const item = await service.create(makeKnowledgeItem({ title: 'Parking at the office', content, vertical: 'hr', tags: [' parking ', 'office', 'PARKING', ''] }));

      expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(item.tags).toEqual(['parking', 'office']);
      expect(item.createdAt).toBe(item.updatedAt);
      expect(await service.get(item.id)).toEqual(item);

      const chunks = await chunkRows(item.id);
      expect(chunks.map((c) => c.text)).toEqual(chunkContent(content).map((c) => c.text));
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) expect(chunk).toMatchObject({ title: 'Parking at the office', vertical: 'hr' });

      const hits = await service.search('parking permits');
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.every((h) => h.itemId === item.id)).toBe(true);
      await expectIndexConsistent();
    });

    it('re-indexes on update: old words disappear, new words and the new title are found', async () => {
      const item = await service.create(makeKnowledgeItem({ title: 'Lost property', content: 'Umbrellas left in store are kept for 30 days.' }));
      const before = await chunkRows(item.id);

      const updated = await service.update(item.id, { title: 'Lost and found', content: 'Forgotten scarves are donated after two weeks.' });
      expect(updated.title).toBe('Lost and found');
      expect(updated.category).toBe('General');
      expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(item.updatedAt));
      expect(await service.get(item.id)).toEqual(updated);

      expect(await service.search('umbrellas')).toEqual([]);
      const [hit] = await service.search('scarves');
      expect(hit).toMatchObject({ itemId: item.id, title: 'Lost and found' });
      const after = await chunkRows(item.id);
      expect(after.map((c) => c.id)).not.toEqual(before.map((c) => c.id));
      expect(after.every((c) => c.title === 'Lost and found')).toBe(true);
      await expectIndexConsistent();
    });

    it('moves the chunks when the vertical changes', async () => {
      const item = await service.create(makeKnowledgeItem({ content: 'Pension contributions are matched.', vertical: 'customer-service' }));
      await service.update(item.id, { vertical: 'hr' });
      expect(await service.search('pension', { vertical: 'customer-service' })).toEqual([]);
      expect(await service.search('pension', { vertical: 'hr' })).toHaveLength(1);
    });

    it('deletes the item and every one of its chunks', async () => {
      const keep = await service.create(makeKnowledgeItem({ title: 'Keep me', content: 'Lanterns are sold in the garden section.' }));
      const item = await service.create(makeKnowledgeItem({ title: 'Delete me', content: longContent(8, 'Lanterns need replacement bulbs.') }));
      expect((await chunkRows(item.id)).length).toBeGreaterThan(1);

      await service.remove(item.id);

      expect(await chunkRows(item.id)).toEqual([]);
      await expectKnowledgeError(service.get(item.id), 'not_found');
      expect((await service.search('lanterns')).map((h) => h.itemId)).toEqual([keep.id]);
      await expectIndexConsistent();
    });

    it('reports unknown ids as not_found', async () => {
      const id = randomUUID();
      await expectKnowledgeError(service.get(id), 'not_found');
      await expectKnowledgeError(service.update(id, { title: 'x' }), 'not_found');
      await expectKnowledgeError(service.remove(id), 'not_found');
    });

    it('gets only checked items: the contract refuses invalid input before anything is written', async () => {
      const base = { title: 'Store opening hours', vertical: 'customer-service' };
      for (const [input, message] of [
        [{ ...base, title: '   ' }, 'Title is required'],
        [{ ...base, title: 'x'.repeat(201) }, 'Title must be at most 200 characters'],
        [{ ...base, vertical: 'future' }, 'Vertical must be one of customer-service, hr, legal, sales'],
        [{ ...base, tags: ['ok', 42] }, 'Each tag must be text'],
        [{ ...base, category: 'c'.repeat(101) }, 'Category must be at most 100 characters'],
        [{ ...base, attachments: [{ name: 'a.txt', content: 'x', uploadedAt: 8640000000000001 }] }, 'The upload time must be a date between 2000 and 2099'],
      ] as const) {
        const result = check(KnowledgeItemInputSchema, input);
        expect(result.ok ? 'accepted' : result.problem).toMatchObject({ code: 'validation_failed', message });
      }
      await expectKnowledgeError(service.create(makeKnowledgeItem({ attachments: [{ id: randomUUID(), name: 'kept.txt' }] })), 'validation_failed');
      expect(await service.count()).toBe(0);
      expect(await chunkRows()).toEqual([]);
    });

    it('answers for an item whose stored upload time no date can show (a row written before dates were bounded)', async () => {
      const item = await service.create(makeKnowledgeItem({ attachments: [{ name: 'notes.txt', content: 'Opening hours notes.' }] }));
      await db.dataSource.query('UPDATE knowledge_attachments SET uploaded_at = 8640000000000001');
      const [listed] = await service.listWithAttachments();
      expect(listed.attachments[0].uploadedAt).toBe(listed.updatedAt);
      expect((await service.get(item.id)).attachments[0].uploadedAt).toBe(item.updatedAt);
      expect(Date.parse(item.updatedAt)).toBeGreaterThanOrEqual(EARLIEST_DATE_MS);
    });

    it('rolls back the items and their chunks together when indexing fails', async () => {
      type Insert = (manager: unknown, rows: unknown[]) => Promise<void>;
      const target = service as unknown as { insertChunks: Insert };
      const original = target.insertChunks.bind(service);
      // Some chunks are written (and indexed by the triggers), then the write fails.
      const insert = jest.spyOn(target, 'insertChunks').mockImplementationOnce(async (manager, rows) => {
        await original(manager, rows.slice(0, 1));
        throw new Error('disk full');
      });
      try {
        await expect(
          service.createMany([makeKnowledgeItem({ title: 'First' }), makeKnowledgeItem({ title: 'Second' })]),
        ).rejects.toThrow('disk full');
      } finally {
        insert.mockRestore();
      }
      expect(await service.count()).toBe(0);
      expect(await chunkRows()).toEqual([]);
      await expectIndexConsistent();
    });

    it('keeps concurrent writes apart (each in its own transaction)', async () => {
      const items = await Promise.all(
        Array.from({ length: 12 }, (_, i) => service.create(makeKnowledgeItem({ title: `Concurrent ${i}`, content: longContent(4, `Topic ${i}.`) }))),
      );
      await Promise.all(items.slice(0, 6).map((item) => service.remove(item.id)));
      expect(await service.count()).toBe(6);
      for (const item of items.slice(6)) expect((await chunkRows(item.id)).length).toBe(chunkContent(item.content).length);
      await expectIndexConsistent();
    });

    it('indexes an item with no content by its title', async () => {
      const item = await service.create(makeKnowledgeItem({ title: 'Gift wrapping service', content: '' }));
      expect(await chunkRows(item.id)).toEqual([expect.objectContaining({ ord: 0, text: '', tokenCount: 0 })]);
      const result = await service.retrieve('Do you offer gift wrapping?');
      expect(result.sources.map((s) => s.id)).toEqual([item.id]);
    });
  });

  describe('list', () => {
    it('lists newest first, optionally by vertical', async () => {
      const a = await service.create(makeKnowledgeItem({ title: 'A' }));
      const b = await service.create(makeKnowledgeItem({ title: 'B', vertical: 'hr' }));
      const c = await service.create(makeKnowledgeItem({ title: 'C' }));
      expect((await service.list()).map((i) => i.id)).toEqual([c.id, b.id, a.id]);
      await service.update(a.id, { content: 'edited' });
      expect((await service.list()).map((i) => i.id)).toEqual([a.id, c.id, b.id]);
      expect((await service.list({ vertical: 'hr' })).map((i) => i.id)).toEqual([b.id]);
      expect((await service.list({ vertical: 'customer-service', search: '  ' })).map((i) => i.id)).toEqual([a.id, c.id]);
    });

    it('with search: relevant items first, then items merely containing the text', async () => {
      const body = await service.create(makeKnowledgeItem({ title: 'Delivery', content: 'We can refund delivery charges for late orders.' }));
      const titled = await service.create(makeKnowledgeItem({ title: 'Refund policy', content: 'Refunds are paid within 5 days. A refund goes to your card.' }));
      await service.create(makeKnowledgeItem({ title: 'Unrelated', content: 'Nothing to see.' }));
      expect((await service.list({ search: 'refund' })).map((i) => i.id)).toEqual([titled.id, body.id]);
      // "refu" is not a word the index knows, but the admin is still typing it.
      expect((await service.list({ search: 'refu' })).map((i) => i.id).sort()).toEqual([titled.id, body.id].sort());
      expect(await service.list({ search: '100%_\\' })).toEqual([]);
      // A NUL would cut SQLite's LIKE pattern short to '%' (everything); control characters count as spaces.
      expect((await service.list({ search: '\u0000refund\u0007' })).map((i) => i.id)).toEqual([titled.id, body.id]);
      // An item found only through a related word comes after the items with the word itself.
      const synonym = await service.create(makeKnowledgeItem({ title: 'Expenses and reimbursement', content: 'We reimburse travel. Reimbursement takes a week.', vertical: 'hr' }));
      const withSynonym = (await service.list({ search: 'refund' })).map((i) => i.id);
      expect(withSynonym.slice(0, 2)).toEqual([titled.id, body.id]);
      if (withSynonym.includes(synonym.id)) expect(withSynonym.indexOf(synonym.id)).toBe(2);
    });
  });

  describe('search and retrieve', () => {
    it('ranks an item whose title matches above one mentioning the word once in its body', async () => {
      const mention = await service.create(
        makeKnowledgeItem({
          title: 'Store events',
          content: 'Join our weekend workshops. Staff can also answer questions about the warranty on tools bought during the event.',
        }),
      );
      const titled = await service.create(
        makeKnowledgeItem({ title: 'Warranty', content: 'Tools are covered for two years against manufacturing defects.' }),
      );
      const passages = await service.search('warranty');
      expect(passages.map((p) => p.itemId)).toEqual([titled.id, mention.id]);
      expect(passages[0].score).toBeGreaterThan(passages[1].score);
      // The passing mention is no source: citing it would be an unrelated chip under the reply.
      const { sources } = await service.retrieve('What does the warranty cover?');
      expect(sources.map((s) => s.id)).toEqual([titled.id]);
      expect((await service.retrieve('What does the warranty cover?', { explain: true })).candidates?.map((c) => c.itemId)).toEqual([titled.id, mention.id]);
    });

    it('searches only the requested vertical', async () => {
      const cs = await service.create(makeKnowledgeItem({ title: 'Holiday opening hours', vertical: 'customer-service' }));
      const hr = await service.create(makeKnowledgeItem({ title: 'Holiday allowance', content: 'You get 25 days of holiday.', vertical: 'hr' }));
      expect((await service.retrieve('holiday', { vertical: 'hr' })).sources.map((s) => s.id)).toEqual([hr.id]);
      expect((await service.retrieve('holiday', { vertical: 'customer-service' })).sources.map((s) => s.id)).toEqual([cs.id]);
      expect((await service.retrieve('holiday')).sources.map((s) => s.id).sort()).toEqual([cs.id, hr.id].sort());
      expect((await service.search('holiday', { vertical: 'legal' }))).toEqual([]);
    });

    it('answers hostile or empty queries with results or nothing, never an error', async () => {
      await service.create(makeKnowledgeItem({ title: 'Near-field payments', content: 'Tap your card or phone near the reader.' }));
      const queries = [
        '"AND OR NEAR( * ^',
        'title:near OR text:*',
        'NEAR(card phone, 2)',
        "'; DROP TABLE knowledge_items; --",
        'card & phone | !reader <-> tap:*',
        "O'Reilly's \\\\ \" ' `",
        '((((((((',
        '-card +phone ^title',
        '🙂🙃 ∑∫ 休暇',
        'x'.repeat(10_000),
        Array.from({ length: 500 }, (_, i) => `w${i}`).join(' '),
        '',
        '   ',
        'how do I?',
      ];
      for (const query of queries) {
        expect(Array.isArray(await service.search(query))).toBe(true);
        const retrieval = await service.retrieve(query, { vertical: 'customer-service' });
        expect(retrieval.coverage).toBeGreaterThanOrEqual(0);
        expect(retrieval.coverage).toBeLessThanOrEqual(1);
        expect(Array.isArray(await service.list({ search: query }))).toBe(true);
      }
      expect(await service.count()).toBe(1);
      expect(await service.retrieve('how do I?')).toEqual({ sources: [], passages: [], confidence: 0, match: 0, answered: false, coverage: 0, terms: [] });
    });

    it('scores per item: a long multi-chunk item is one source with at most passagesPerItem passages', async () => {
      const long = await service.create(
        makeKnowledgeItem({ title: 'Company car scheme', content: longContent(14, 'The company car scheme includes fuel cards.'), vertical: 'hr' }),
      );
      const short = await service.create(makeKnowledgeItem({ title: 'Company car fuel', content: 'Company car drivers fill up with the fuel card at any station.', vertical: 'hr' }));
      expect((await chunkRows(long.id)).length).toBeGreaterThanOrEqual(4);

      const result = await service.retrieve('company car scheme fuel card', { vertical: 'hr', passagesPerItem: 2 });
      expect(result.sources.map((s) => s.id)).toEqual([long.id, short.id]);
      expect(result.sources[0].score).toBe(1);
      expect(result.sources[1].score).toBeGreaterThan(0);
      expect(result.sources[1].score).toBeLessThan(1);
      const longPassages = result.passages.filter((p) => p.itemId === long.id);
      expect(longPassages).toHaveLength(2);
      expect(result.passages.map((p) => p.itemId)).toEqual([long.id, long.id, short.id]);
      for (const p of result.passages) expect(p.score).toBeGreaterThan(0);
      expect(Math.max(...result.passages.map((p) => p.score))).toBe(1);
      // Each passage quotes its own chunk (the candidates are ranked without their text; the
      // chosen passages' text is read afterwards).
      const stored = new Map((await chunkRows()).map((c) => [c.id, c.text]));
      for (const p of result.passages) expect(p.text).toBe(stored.get(p.chunkId));
      expect(result.passages.every((p) => p.text.length > 0)).toBe(true);
    });

    it('reports coverage as the IDF-weighted share of the question’s terms the first source covers, and a confidence that follows it', async () => {
      await service.create(makeKnowledgeItem({ title: 'Gift cards', content: 'Gift cards never expire and can be used online.' }));
      await service.create(makeKnowledgeItem({ title: 'Store opening hours', content: 'Our stores open at 9 am and close at 6 pm.' }));
      const full = await service.retrieve('Do gift cards expire?');
      expect(full.terms).toEqual(['gift', 'cards', 'expire']);
      expect(full.coverage).toBe(1);
      expect(full.answered).toBe(true);
      // "cryptocurrency" and "mining" are in no item: as rare as words get, they weigh most.
      const part = await service.retrieve('gift cards for cryptocurrency mining', { explain: true });
      expect(part.candidates?.[0].coverage).toBeGreaterThan(0);
      expect(part.candidates?.[0].coverage).toBeLessThan(0.5);
      expect(part.candidates?.[0].match).toBeLessThan(full.match);
      const none = await service.retrieve('cryptocurrency mining');
      expect(none).toEqual({ sources: [], passages: [], confidence: 0, match: 0, answered: false, coverage: 0, terms: ['cryptocurrency', 'mining'] });
    });

    it('cites nothing below the relevance floor: a question the knowledge does not cover is "not found", with confidence 0 (its best match below the floor)', async () => {
      const warranty = await service.create(makeKnowledgeItem({ title: 'Product warranty', content: 'All products come with a 2-year warranty covering defects.' }));
      await service.create(makeKnowledgeItem({ title: 'Store opening hours', content: 'Our stores open at 9 am and close at 6 pm on weekdays.' }));
      const covered = await service.retrieve('How long is the warranty on products?');
      expect(covered.sources.map((s) => s.id)).toEqual([warranty.id]);
      expect(covered.confidence).toBeGreaterThanOrEqual(0.7);
      // Shares one common word ("products") with the warranty article, and nothing else.
      const uncovered = await service.retrieve('Can I pay for products with cryptocurrency or a bank transfer?', { explain: true });
      expect(uncovered.candidates?.length).toBeGreaterThan(0);
      expect(uncovered).toMatchObject({ sources: [], passages: [], answered: false, confidence: 0 });
      expect(uncovered.match).toBeLessThan(0.4);
      expect(uncovered.match).toBeGreaterThan(0);
    });

    it('suggests the vertical whose knowledge matches when the one asked in does not (or only weakly)', async () => {
      await service.create(makeKnowledgeItem({ title: 'Shipping times', content: 'Standard delivery takes 3-5 business days. Carrier delays during holidays are possible.' }));
      await service.create(makeKnowledgeItem({ title: 'Paid time off (PTO)', content: 'Employees earn 20 vacation days of paid time off per year.', vertical: 'hr' }));
      const elsewhere = ['customer-service', 'hr', 'legal', 'sales'];
      // Matches "holidays" in the shipping article through the thesaurus, but HR far better.
      const vacation = await service.retrieve('How many vacation days do I get?', { vertical: 'customer-service', elsewhere });
      expect(vacation).toMatchObject({ sources: [], passages: [], answered: false, suggestedVertical: 'hr' });
      const inHr = await service.retrieve('How many vacation days do I get?', { vertical: 'hr', elsewhere });
      expect(inHr.answered).toBe(true);
      expect(inHr.suggestedVertical).toBeUndefined();
      // Without other verticals to check, or when nothing anywhere matches: no suggestion.
      expect((await service.retrieve('How many vacation days do I get?', { vertical: 'customer-service' })).suggestedVertical).toBeUndefined();
      expect((await service.retrieve('cryptocurrency mining rigs', { vertical: 'customer-service', elsewhere })).suggestedVertical).toBeUndefined();
    });

    it('finds English knowledge for a question in another Latin-script language through cognates, offline', async () => {
      const docs = await service.create(makeKnowledgeItem({ title: 'Generating documentation', content: 'Documentation can be generated from the docstrings of your modules with pydoc.' }));
      await service.create(makeKnowledgeItem({ title: 'Store opening hours', content: 'Our stores open at 9 am and close at 6 pm on weekdays.' }));
      const result = await service.retrieve('¿Cómo generar la documentación de los módulos?');
      expect(result.sources.map((s) => s.id)).toEqual([docs.id]);
      // Nothing in common, cognates or not: still "not found".
      expect((await service.retrieve('¿Dónde puedo aparcar la bicicleta?')).answered).toBe(false);
    });

    it('credits a thesaurus match to the visitor’s words at half weight', async () => {
      const refunds = await service.create(makeKnowledgeItem({ title: 'Refunds', content: 'We refund returned items within 5 days.' }));
      const result = await service.retrieve('How do I get my money back?');
      expect(result.sources.map((s) => s.id)).toEqual([refunds.id]);
      expect(result.coverage).toBe(0.5);
      expect((await service.retrieve('How do I get my money back?', { expand: false })).sources).toEqual([]);
    });
  });

  describe('search index', () => {
    it('scores exactly like the BM25 it replaces, visitor words and thesaurus words ranked together', async () => {
      for (const item of FAQ_ITEMS) await service.create(KnowledgeItemInputSchema.parse(item));
      await service.create(makeKnowledgeItem({ title: 'Company car scheme', content: longContent(14, 'The company car scheme includes fuel cards.'), vertical: 'hr' }));
      expect(await expectSearchesLikeReference(db.dataSource, dialect, service)).toBeGreaterThan(FAQ_QUESTIONS.length * 10);
    });

    it('returns every hit when a search asks for more than 500 (rows fetched in several statements), cold and warm', async () => {
      const created = await service.createMany(
        Array.from({ length: 620 }, (_, i) => makeKnowledgeItem({ title: `Lantern ${i}`, content: `Lantern number ${i} has ${'a wick '.repeat(1 + (i % 7))}.` })),
      );
      const ids = new Set(created.map((item) => item.id));
      const index = createKnowledgeSearchIndex(db.dataSource);
      try {
        const cold = await index.search('lantern wick', { limit: 1000 });
        expect(cold.length).toBe(620);
        expect(cold.every((hit) => ids.has(hit.itemId) && hit.title.startsWith('Lantern ') && hit.text.startsWith('Lantern number'))).toBe(true);
        // Best first, and the same again from the cache.
        expect(cold.every((hit, i) => i === 0 || hit.score <= cold[i - 1].score)).toBe(true);
        expect(cold[0].score).toBeGreaterThan(cold[cold.length - 1].score);
        expect(await index.search('lantern wick', { limit: 1000 })).toEqual(cold);
      } finally {
        await index.close();
      }
    });

    it('stays exact under writes that bypass the service (insert, update, delete, cascade)', async () => {
      const a = await service.create(makeKnowledgeItem({ title: 'Bicycle repairs', content: longContent(6, 'Punctures are fixed for free.') }));
      const b = await service.create(makeKnowledgeItem({ title: 'Helmet sizes', content: 'Helmets come in three sizes.', vertical: 'hr' }));
      await expectIndexConsistent();
      // Another server (its own service and cache) searches before and after each change.
      const other = knowledgeServiceOn(db.dataSource);
      expect([...new Set((await other.search('punctures')).map((p) => p.itemId))]).toEqual([a.id]);

      await db.dataSource.query(
        `INSERT INTO knowledge_chunks (item_id, ord, vertical, title, text, token_count) VALUES ($1, 9, 'legal', 'Helmet law', 'Punctures and helmets in court.', 5)`.replace(
          /\$1/g,
          dialect === 'sqlite' ? '?' : '$1',
        ),
        [b.id],
      );
      await expectIndexConsistent();
      expect((await other.search('punctures', { vertical: 'legal' })).map((p) => p.title)).toEqual(['Helmet law']);

      await db.dataSource.query(`UPDATE knowledge_chunks SET title = 'Tyre repairs', vertical = 'sales' WHERE item_id = ${dialect === 'sqlite' ? '?' : '$1'}`, [a.id]);
      await expectIndexConsistent();
      expect(await other.search('bicycle')).toEqual([]);
      expect((await other.search('tyre', { vertical: 'sales' })).length).toBeGreaterThan(1);

      await db.dataSource.query(`DELETE FROM knowledge_chunks WHERE ord = 0`);
      await expectIndexConsistent();
      await db.dataSource.query(`DELETE FROM knowledge_items WHERE id = ${dialect === 'sqlite' ? '?' : '$1'}`, [b.id]);
      await expectIndexConsistent();
      expect(await other.search('helmet')).toEqual([]);
      if (dialect === 'postgres') {
        // CASCADE: chunk embeddings (knowledge_chunk_embeddings) reference the chunks.
        await db.dataSource.query('TRUNCATE knowledge_chunks CASCADE');
        await expectIndexConsistent();
        expect(await other.search('tyre')).toEqual([]);
      }
    });

    it('sees a write made through another service at once', async () => {
      const reader = knowledgeServiceOn(db.dataSource);
      const writer = knowledgeServiceOn(db.dataSource);
      const first = await writer.create(makeKnowledgeItem({ title: 'Kayak rental', content: 'Kayaks are rented by the hour.' }));
      expect((await reader.search('kayak')).map((p) => p.itemId)).toEqual([first.id]);
      const second = await writer.create(makeKnowledgeItem({ title: 'Kayak storage', content: 'Kayak racks are free for members.' }));
      expect((await reader.search('kayak')).map((p) => p.itemId).sort()).toEqual([first.id, second.id].sort());
      await writer.remove(first.id);
      expect((await reader.search('kayak')).map((p) => p.itemId)).toEqual([second.id]);
      await expectIndexConsistent();
    });
  });

  // A Postgres-only migration: SQLite's knowledge_postings is already stored in (term, block) order.
  // (Registered for the Postgres run only; CI runs both dialects.)
  if (dialect === 'postgres') describe('migration 1732190700000 (postgres: postings read through partial indexes)', () => {
    it('reads small postings rows by an index-only scan, and goes down and up again', async () => {
      for (let i = 0; i < 4; i++) await service.create(makeKnowledgeItem({ title: `Lantern ${i}`, content: longContent(6, 'The lantern glows.') }));
      // Visible to index-only scans, and planned with statistics of the table as it is now
      // (earlier tests of this file wrote and deleted thousands of rows).
      await db.dataSource.query('VACUUM ANALYZE knowledge_postings');
      // The statement a cold search sends to read postings, as sent.
      const spy = jest.spyOn(db.dataSource, 'query');
      const expected = await knowledgeServiceOn(db.dataSource).search('lantern glows');
      const read = spy.mock.calls.find(([sql]) => String(sql).includes('knowledge_postings'));
      spy.mockRestore();
      expect(read).toBeDefined();
      const [sql, params] = read as [string, unknown[]];
      const runner = db.dataSource.createQueryRunner();
      try {
        // A table this small is read whole otherwise, or through a bitmap of the primary key:
        // ask for the plan an index scan would give (only a size predicate that matches the
        // partial index's lets the planner use it).
        await runner.query('SET enable_seqscan = off');
        await runner.query('SET enable_bitmapscan = off');
        const plan = (await runner.query(`EXPLAIN ${sql}`, params)).map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
        // Index-only when VACUUM could mark the pages all-visible; a transaction of a concurrent
        // suite can keep it from doing so, and then the same partial index is read by a plain index scan.
        expect(plan).toMatch(/Index (Only )?Scan using knowledge_postings_small/);
        expect(plan).toContain('knowledge_postings_large');
      } finally {
        await runner.query('RESET enable_seqscan');
        await runner.query('RESET enable_bitmapscan');
        await runner.release();
      }

      const migration = new KnowledgePostingsReadsPostgres1732190700000();
      const migrate = async (direction: 'up' | 'down') => {
        const q = db.dataSource.createQueryRunner();
        try {
          await migration[direction](q);
        } finally {
          await q.release();
        }
      };
      const indexes = async () =>
        (await db.dataSource.query(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'knowledge_postings' ORDER BY indexname`)).map((r: { indexname: string }) => r.indexname);
      await migrate('down');
      expect(await indexes()).toEqual(['knowledge_postings_pkey']);
      expect(await knowledgeServiceOn(db.dataSource).search('lantern glows')).toEqual(expected);
      await migrate('up');
      expect(await indexes()).toEqual(['knowledge_postings_large', 'knowledge_postings_pkey', 'knowledge_postings_small']);
      expect(await knowledgeServiceOn(db.dataSource).search('lantern glows')).toEqual(expected);
    });
  });

  describe('search cache warm-up', () => {
    // A database of their own: services of the other tests (their background warm-ups after
    // their writes) would read postings while these tests count one service's statements.
    let wdb: TestDatabase;
    let seeder: KnowledgeService;

    beforeAll(async () => {
      wdb = await openTestDatabase(dialect);
      seeder = knowledgeServiceOn(wdb.dataSource);
      // It writes the test data; it does not warm in the background.
      await seeder.onModuleDestroy();
    });

    afterAll(async () => {
      await wdb?.close();
    });

    beforeEach(async () => {
      await wdb.dataSource.query('DELETE FROM knowledge_chunks');
      await wdb.dataSource.query('DELETE FROM knowledge_items');
    });

    /** Services of the test under way, stopped after it (none warms during the next test). */
    const started: KnowledgeService[] = [];
    const newService = (): KnowledgeService => {
      const created = knowledgeServiceOn(wdb.dataSource);
      started.push(created);
      return created;
    };
    afterEach(async () => {
      await Promise.all(started.splice(0).map((s) => s.onModuleDestroy()));
    });

    /**
     * The SQL statements `work` sends that ask for the postings of some term (SQLite: a statement
     * naming knowledge_postings; Postgres: one whose term list, or list of words to stem and
     * read, is not empty).
     */
    async function postingsReads(work: () => Promise<unknown>): Promise<number> {
      const spy = jest.spyOn(wdb.dataSource, 'query');
      try {
        await work();
        return spy.mock.calls.filter(([sql, params]) => {
          if (!String(sql).includes('knowledge_postings')) return false;
          if (dialect === 'sqlite') return true;
          const [first, second] = (params ?? []) as unknown[][];
          return (first?.length ?? 0) > 0 || (String(sql).includes('to_tsvector') && (second?.length ?? 0) > 0);
        }).length;
      } finally {
        spy.mockRestore();
      }
    }

    /**
     * Runs `trigger`, then waits (at most 10 s, without searching: a search would cache its own
     * terms) until the server's background warm-up has asked for the postings of `term`, and
     * for that warm-up to finish.
     */
    async function backgroundWarmUpReads(server: KnowledgeService, term: string, trigger: () => Promise<void>): Promise<void> {
      const spy = jest.spyOn(wdb.dataSource, 'query');
      try {
        await trigger();
        const deadline = Date.now() + 10_000;
        const asked = () => spy.mock.calls.some(([sql, params]) => String(sql).includes('knowledge_postings') && JSON.stringify(params ?? []).includes(`"${term}"`));
        while (!asked()) {
          if (Date.now() > deadline) throw new Error(`no background warm-up read "${term}" within 10 s`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        spy.mockRestore();
      }
      // The warm-up under way (waited for; it then schedules one more, which is harmless).
      await server.warmSearchCache();
    }

    // Words without thesaurus entries, so a search asks for these words' terms only.
    async function seedLanterns(): Promise<void> {
      for (let i = 0; i < 6; i++) {
        await seeder.create(makeKnowledgeItem({ title: `Lantern model ${i}`, content: `The lantern model ${i} runs for two nights. Keep the wick trimmed.` }));
      }
      await seeder.create(makeKnowledgeItem({ title: 'Zeppelin tours', content: 'Zeppelin flights leave at dawn.' }));
    }

    it('reads the frequent terms ahead: a warmed search finds the same chunks without reading postings', async () => {
      await seedLanterns();
      const cold = newService();
      const warmed = newService();
      const report = await warmed.warmSearchCache();
      expect(report.terms).toBeGreaterThan(0);
      expect(report.bytes).toBeGreaterThan(0);

      let coldResult: unknown;
      let warmResult: unknown;
      expect(await postingsReads(async () => (coldResult = await cold.search('lantern wick')))).toBeGreaterThan(0);
      expect(await postingsReads(async () => (warmResult = await warmed.search('lantern wick')))).toBe(0);
      expect(warmResult).toEqual(coldResult);
      expect((warmResult as unknown[]).length).toBe(6);
      // A word in one chunk only is not among the frequent terms: read on first use.
      expect(await postingsReads(() => warmed.search('zeppelin'))).toBeGreaterThan(0);
    });

    it('after a write, warms again in the background with the terms searched before it', async () => {
      await seedLanterns();
      const server = newService();
      await server.warmSearchCache();
      // A rare word searched before the write: cached by that search, dropped by the write.
      expect((await server.search('zeppelin')).map((p) => p.title)).toEqual(['Zeppelin tours']);
      expect(await postingsReads(() => server.search('zeppelin'))).toBe(0);

      let added: { id: string } | undefined;
      await backgroundWarmUpReads(server, 'zeppelin', async () => {
        added = await server.create(makeKnowledgeItem({ title: 'Zeppelin museum', content: 'The zeppelin museum opens on Sundays.' }));
      });
      // Warmed from the new version of the index: no read, and the new item is found.
      let found: { itemId: string }[] = [];
      expect(await postingsReads(async () => (found = await server.search('zeppelin')))).toBe(0);
      expect(found.map((p) => p.itemId)).toContain(added?.id);
      expect(await postingsReads(() => server.search('lantern'))).toBe(0);
    });

    it('warms again after a write made by another server, once a search has seen it', async () => {
      await seedLanterns();
      const server = newService();
      const other = newService();
      // Only `server` warms in the background (what is waited for below).
      await other.onModuleDestroy();
      await server.warmSearchCache();
      expect(await postingsReads(() => server.search('lantern'))).toBe(0);
      const added = await other.create(makeKnowledgeItem({ title: 'Lantern battery pack', content: 'A battery pack for the lantern adds a third night.' }));
      // The first search sees the new version (reads, finds the item), and a warm-up follows:
      // it reads again the frequent "wick", which that search did not ask for.
      await backgroundWarmUpReads(server, 'wick', async () => {
        expect((await server.search('lantern battery')).map((p) => p.itemId)[0]).toBe(added.id);
      });
      expect(await postingsReads(() => server.search('wick'))).toBe(0);
      expect((await server.search('lantern battery')).map((p) => p.itemId)[0]).toBe(added.id);
    });

    it('answers a warm search in one statement, which also sees a write by another server at once', async () => {
      await seedLanterns();
      const server = newService();
      const other = newService();
      await other.onModuleDestroy();
      await server.warmSearchCache();
      const before = await server.search('lantern wick');
      expect(before.length).toBe(6);

      const spy = jest.spyOn(wdb.dataSource, 'query');
      let again: typeof before = [];
      try {
        again = await server.search('lantern wick');
        // The winners' rows and the statistics that prove the cache current, together.
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      expect(again).toEqual(before);

      // Another server deletes the best hit and adds a better one: the next search ranks anew
      // (the cached ranking is not served) and matches what a fresh service finds.
      await other.remove(before[0].itemId);
      const added = await other.create(makeKnowledgeItem({ title: 'Lantern wick kit', content: 'A lantern wick kit: three wicks for the lantern.' }));
      const after = await server.search('lantern wick');
      expect(after.map((p) => p.itemId)).not.toContain(before[0].itemId);
      expect(after[0].itemId).toBe(added.id);
      expect(after).toEqual(await newService().search('lantern wick'));
    });

    it('quotes a warm retrieval from the cache (one statement for search and passages), and another server\'s edit at once', async () => {
      await seedLanterns();
      const server = newService();
      const other = newService();
      await server.warmSearchCache();
      const before = await server.retrieve('lantern wick trimmed', { limit: 2 });
      expect(before.passages.length).toBeGreaterThan(0);
      expect(before.passages[0].text).toContain('wick trimmed');

      // Every read asks the data source for a query runner (TypeORM's finds and raw reads alike).
      const spy = jest.spyOn(wdb.dataSource, 'createQueryRunner');
      let again: typeof before | undefined;
      try {
        again = await server.retrieve('lantern wick trimmed', { limit: 2 });
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      expect(again).toEqual(before);

      // Another server rewrites the first source: the next retrieval quotes the new text.
      const first = before.passages[0];
      await other.update(first.itemId, { content: 'The lantern wick is trimmed at the shop for free, every Sunday.' });
      const after = await server.retrieve('lantern wick trimmed', { limit: 2 });
      const quoted = after.passages.find((p) => p.itemId === first.itemId);
      expect(quoted?.text).toContain('at the shop for free');
      expect(after.passages.map((p) => p.text)).not.toContain(first.text);
    });

    it('warms an empty knowledge base without error', async () => {
      const report = await newService().warmSearchCache();
      expect(report).toMatchObject({ terms: 0 });
    });
  });

  describe('migration 1732190600000 (knowledge search index)', () => {
    /** Runs the migration's up() or down() in a transaction of its own. */
    async function migrate(direction: 'up' | 'down'): Promise<void> {
      const migration = dialect === 'sqlite' ? new KnowledgeSearchSqlite1732190600000() : new KnowledgeSearchPostgres1732190600000();
      const runner = db.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        await migration[direction](runner);
        await runner.commitTransaction();
      } catch (error) {
        await runner.rollbackTransaction();
        throw error;
      } finally {
        await runner.release();
      }
    }

    it('indexes the chunks already there, searches as before, and goes back down', async () => {
      await migrate('down');
      try {
        // Written under the previous schema (its FTS5 table / GIN index), with some churn.
        const created = [];
        for (const item of FAQ_ITEMS) created.push(await service.create(KnowledgeItemInputSchema.parse(item)));
        await service.update(created[0].id, { content: longContent(9, 'Parcels are insured up to 500 euros.') });
        await service.remove(created[1].id);
        await service.update(created[2].id, { vertical: 'hr' });
      } finally {
        await migrate('up');
      }
      await expectIndexConsistent();
      const fresh = knowledgeServiceOn(db.dataSource);
      expect(await expectSearchesLikeReference(db.dataSource, dialect, fresh)).toBeGreaterThan(FAQ_QUESTIONS.length * 10);

      await migrate('down');
      if (dialect === 'sqlite') {
        await db.dataSource.query(`INSERT INTO knowledge_chunks_fts (knowledge_chunks_fts, rank) VALUES ('integrity-check', 1)`);
        const [{ n }] = await db.dataSource.query(`SELECT count(*) AS n FROM knowledge_chunks_fts WHERE knowledge_chunks_fts MATCH '"parcels"'`);
        expect(Number(n)).toBeGreaterThan(0);
      } else {
        const [{ n }] = await db.dataSource.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'idx_knowledge_chunks_tsv' AND schemaname = current_schema()`);
        expect(n).toBe(1);
      }
      await migrate('up');
      await expectIndexConsistent();
    });
  });

  describe('retrieval quality on a realistic FAQ corpus', () => {
    const keyOfId = new Map<string, string>();

    beforeEach(async () => {
      keyOfId.clear();
      for (const item of FAQ_ITEMS) {
        const created = await service.create(KnowledgeItemInputSchema.parse(item));
        keyOfId.set(created.id, item.key);
      }
    });

    async function measure(options: { withVertical: boolean; expand: boolean }): Promise<{ top1: number; top3: number; misses: string[] }> {
      let top1 = 0;
      let top3 = 0;
      const misses: string[] = [];
      for (const q of FAQ_QUESTIONS) {
        const { sources } = await service.retrieve(q.question, {
          vertical: options.withVertical ? q.vertical : undefined,
          limit: 5,
          expand: options.expand,
        });
        const rank = sources.map((s) => keyOfId.get(s.id)).indexOf(q.expected);
        if (rank === 0) top1++;
        if (rank >= 0 && rank < 3) top3++;
        if (rank !== 0) misses.push(`${q.question} -> ${sources.slice(0, 3).map((s) => keyOfId.get(s.id)).join(', ')}`);
      }
      return { top1: top1 / FAQ_QUESTIONS.length, top3: top3 / FAQ_QUESTIONS.length, misses };
    }

    it('puts the right item first for >= 70% and in the top 3 for >= 90% of questions', async () => {
      expect(FAQ_ITEMS.length).toBeGreaterThanOrEqual(40);
      expect(FAQ_QUESTIONS.length).toBeGreaterThanOrEqual(40);
      const inVertical = await measure({ withVertical: true, expand: true });
      const allVerticals = await measure({ withVertical: false, expand: true });
      const plainBm25 = await measure({ withVertical: true, expand: false });
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
      console.log(
        [
          `[retrieval ${dialect}] ${FAQ_QUESTIONS.length} questions, ${FAQ_ITEMS.length} items`,
          `  in vertical:            top-1 ${pct(inVertical.top1)}  top-3 ${pct(inVertical.top3)}`,
          `  across all verticals:   top-1 ${pct(allVerticals.top1)}  top-3 ${pct(allVerticals.top3)}`,
          `  without thesaurus:      top-1 ${pct(plainBm25.top1)}  top-3 ${pct(plainBm25.top3)}`,
          `  misses (in vertical):   ${inVertical.misses.length ? `\n    ${inVertical.misses.join('\n    ')}` : 'none'}`,
        ].join('\n'),
      );
      expect(inVertical.top1).toBeGreaterThanOrEqual(0.7);
      expect(inVertical.top3).toBeGreaterThanOrEqual(0.9);
      expect(allVerticals.top1).toBeGreaterThanOrEqual(0.7);
      expect(allVerticals.top3).toBeGreaterThanOrEqual(0.9);
    });
  });
});
