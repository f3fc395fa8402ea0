/**
 * Postgres search: real BM25 over the inverted index `knowledge_postings` (see bm25.ts), not
 * ts_rank, scored in process.
 *
 * 1. The visitor's content terms are stemmed by Postgres itself (`to_tsvector('english', term)`),
 *    so query and index agree on every stem (the triggers of migration 1732190600000 index the
 *    lexemes of the chunk's `tsv`: weight A is the title, B the text). A term may yield no stem
 *    (a stop word of Postgres' list) or, rarely, several. Stems are remembered per word.
 * 2. One statement reads the collection statistics and the postings of the stems.
 * 3. score = sum over stems of weight x idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), with
 *    tf = TITLE_WEIGHT x title hits + text hits, the non-negative idf ln(1 + (N - df + 0.5) /
 *    (df + 0.5)), and N, df and the average document length (`doc_len`, title + text words, at
 *    least 1) taken within the searched scope (the vertical, or everything). Within one weight,
 *    a stem counts once however many words give it.
 */
import type { DataSource } from 'typeorm';
import { extractQueryTerms } from './query-terms';
import { ChunkRow, IndexRead, IndexReadRow, indexReadOf, PostingsReader, SearchCache, searchPostings, StemmedQuery } from './bm25';
import type { KnowledgeSearchIndex, ScoredChunk, SearchOptions, WeightedTerm } from './search-index';

/** Memory for what searches read (postings, 5 bytes each, and chunk records). */
const CACHE_BYTES = 64 * 1024 * 1024;
/** Words whose stems are remembered (the 'english' configuration never changes them). */
const STEM_MEMO_SIZE = 20_000;

export class PostgresSearchIndex implements KnowledgeSearchIndex {
  private readonly cache = new SearchCache(CACHE_BYTES);
  private readonly stems = new Map<string, string[]>();
  private readonly reader: PostingsReader;

  constructor(private readonly dataSource: DataSource) {
    this.reader = {
      read: (terms, blocks) => this.read(terms, blocks),
      chunks: (ids) => this.chunks(ids),
    };
  }

  async search(query: string | WeightedTerm[], options: SearchOptions): Promise<ScoredChunk[]> {
    const words = (typeof query === 'string' ? extractQueryTerms(query).map((text) => ({ text, weight: 1 })) : query).filter((w) => w.weight > 0);
    if (words.length === 0) return [];
    await this.learnStems(words.map((w) => w.text));
    const stemmed = this.stemQuery(words);
    if (stemmed.terms.length === 0) return [];
    return searchPostings(this.reader, this.cache, stemmed, {
      vertical: options.vertical,
      limit: Math.max(1, Math.floor(options.limit)),
      formula: 'bm25-plus-one',
      scopedStatistics: true,
      avgdlFloor: 1,
    });
  }

  /**
   * Stems the words not seen yet with Postgres itself. (Doing it inside the statement that reads
   * the postings saves a round trip but was not measurably faster: the larger statement costs
   * more to plan.)
   */
  private async learnStems(words: string[]): Promise<void> {
    let unknown = [...new Set(words.filter((text) => !this.stems.has(text)))];
    if (unknown.length === 0) return;
    if (this.stems.size + unknown.length > STEM_MEMO_SIZE) {
      this.stems.clear();
      unknown = [...new Set(words)];
    }
    const rows: { word: string; lexemes: string[] | null }[] = await this.dataSource.query(
      `SELECT t.word, tsvector_to_array(to_tsvector('english', t.word)) AS lexemes FROM unnest($1::text[]) AS t(word)`,
      [unknown],
    );
    for (const row of rows) this.stems.set(row.word, row.lexemes ?? []);
  }

  /** Each stem's weight: the sum of the distinct weights of the words that give it. */
  private stemQuery(words: WeightedTerm[]): StemmedQuery {
    const byTerm = new Map<string, { term: string; weights: Set<number>; words: number[] }>();
    words.forEach((word, i) => {
      for (const term of this.stems.get(word.text) ?? []) {
        let entry = byTerm.get(term);
        if (!entry) {
          entry = { term, weights: new Set(), words: [] };
          byTerm.set(term, entry);
        }
        entry.weights.add(word.weight);
        entry.words.push(i);
      }
    });
    return {
      words: words.map((w) => w.text),
      terms: [...byTerm.values()].map((e) => ({ term: e.term, weight: [...e.weights].reduce((a, b) => a + b, 0), words: e.words })),
    };
  }

  /**
   * Statistics, each term's rows (as rows: one large value per term comes through node-postgres'
   * protocol parser far slower than many row-sized ones), chunk records. (Binary results would
   * save the base64: node-postgres 8 decodes every value of a binary-format row as UTF-8 text
   * unless the whole client is in binary mode, which mangles bytea.)
   */
  private async read(terms: string[], blocks: number[]): Promise<IndexRead> {
    const rows: IndexReadRow[] = await this.dataSource.query(
      `SELECT 0 AS kind, vertical::text AS name, code::int AS n, chunks::text, tokens::text, version::text, NULL::text AS data
         FROM knowledge_search_stats
       UNION ALL
       SELECT 1, term, NULL, NULL, NULL, NULL, encode(data, 'base64') FROM knowledge_postings WHERE term = ANY ($1::text[])
       UNION ALL
       SELECT 2, NULL, block, NULL, NULL, NULL, encode(data, 'base64') FROM knowledge_search_chunks WHERE block = ANY ($2::int[])`,
      [terms, blocks.filter(Number.isSafeInteger)],
    );
    // base64: 1.33 bytes per byte on the wire, against 2 for bytea's hex; line breaks are ignored.
    return indexReadOf(rows, (data) => Buffer.from(String(data), 'base64'));
  }

  private async chunks(ids: number[]): Promise<ChunkRow[]> {
    const list = ids.filter(Number.isSafeInteger);
    if (list.length === 0) return [];
    return this.dataSource.query(
      `SELECT id AS "chunkId", item_id AS "itemId", ord, title, text FROM knowledge_chunks WHERE id = ANY ($1::int[])`,
      [list],
    );
  }
}
