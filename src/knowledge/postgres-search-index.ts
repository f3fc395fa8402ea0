/**
 * Postgres search: real BM25 over the inverted index `knowledge_postings` (see postings-format.ts), not
 * ts_rank, scored in process.
 *
 * 1. The visitor's content terms are stemmed by Postgres itself (`to_tsvector('english', term)`),
 *    so query and index agree on every stem (the triggers of migration 1732190600000 index the
 *    lexemes of the chunk's `tsv`: weight A is the title, B the text). A term may yield no stem
 *    (a stop word of Postgres' list) or, rarely, several. Stems are remembered per word.
 * 2. One statement reads the collection statistics and the postings of the stems; for words not
 *    seen before it is the statement that stems them (one round trip instead of two: measured
 *    on 100,000 chunks, search() + retrieve() of 200 queries, p95 10.2-15.4 -> 9.4-11.1 ms).
 * 3. score = sum over stems of weight x idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), with
 *    tf = TITLE_WEIGHT x title hits + text hits, the non-negative idf ln(1 + (N - df + 0.5) /
 *    (df + 0.5)), and N, df and the average document length (`doc_len`, title + text words, at
 *    least 1) taken within the searched scope (the vertical, or everything). Within one weight,
 *    a stem counts once however many words give it.
 */
import type { DataSource } from 'typeorm';
import { extractQueryTerms } from '../retrieval/query-terms';
import { ChunkFetch, chunkFetchOf, ChunkFetchRow, IndexRead, indexReadOf, IndexReadRow, PostingsReader, StemmedQuery } from './postings-search';
import { PostingsSearchIndex } from './postings-search-index';
import type { KnowledgeSearchIndex, ScoredChunk, ScoredSearch, SearchOptions, WeightedTerm } from './search-index-types';

/** Words whose stems are remembered (the 'english' configuration never changes them). */
const STEM_MEMO_SIZE = 20_000;

export class PostgresSearchIndex extends PostingsSearchIndex implements KnowledgeSearchIndex {
  private readonly stems = new Map<string, string[]>();

  constructor(dataSource: DataSource) {
    // The scorer it replaced: statistics of the vertical searched.
    super(dataSource, { formula: 'bm25-plus-one', scopedStatistics: true, avgdlFloor: 1 });
  }

  /**
   * The stems of `words` by Postgres ('english'), remembered: a warm-up stems the corpus'
   * frequent words, so that searches for them need no stemming statement (see search).
   */
  protected async stemWords(words: string[]): Promise<string[][]> {
    const unknown = words.filter((word) => !this.stems.has(word));
    if (unknown.length > 0) {
      const rows: { word: string; lexemes: string[] }[] = await this.dataSource.query(
        `SELECT t.word, tsvector_to_array(to_tsvector('english', t.word)) AS lexemes FROM unnest($1::text[]) AS t(word)`,
        [unknown],
      );
      for (const row of rows) if (this.stems.size < STEM_MEMO_SIZE) this.stems.set(row.word, row.lexemes);
      const fresh = new Map(rows.map((row) => [row.word, row.lexemes]));
      return words.map((word) => this.stems.get(word) ?? fresh.get(word) ?? []);
    }
    return words.map((word) => this.stems.get(word) ?? []);
  }

  async search(query: string | WeightedTerm[], options: SearchOptions): Promise<ScoredChunk[]> {
    const words = typeof query === 'string' ? extractQueryTerms(query).map((text) => ({ text, weight: 1 })) : query;
    return (await this.searchScored(words, options)).chunks;
  }

  async searchScored(query: WeightedTerm[], options: SearchOptions): Promise<ScoredSearch> {
    const positive = query.map((w, i) => ({ w, i })).filter(({ w }) => w.weight > 0);
    const words = positive.map(({ w }) => w);
    const byQuery = (found: ScoredSearch): ScoredSearch => {
      const wordIdf = query.map(() => 0);
      positive.forEach(({ i }, k) => (wordIdf[i] = found.wordIdf[k] ?? 0));
      return { chunks: found.chunks, wordIdf };
    };
    if (words.length === 0) return byQuery({ chunks: [], wordIdf: [] });
    let reader = this.reader;
    const unknown = this.unknownWords(words.map((w) => w.text));
    if (unknown.length > 0) {
      // Words never seen: one statement stems them and reads what the search will ask for first
      // (statistics, their stems' postings, the uncached postings of the known words), which
      // saves the round trip of stemming first.
      const primed = await this.stemAndRead(unknown, this.uncachedTerms(words.map((w) => w.text)));
      reader = this.primedReader(primed);
    }
    const stemmed = this.stemQuery(words);
    if (stemmed.terms.length === 0) return byQuery({ chunks: [], wordIdf: [] });
    return byQuery(await this.searchStemmed(reader, stemmed, options));
  }

  /** The distinct words whose stems are not remembered (all of them when the memo is full and starts over). */
  private unknownWords(words: string[]): string[] {
    const unknown = [...new Set(words.filter((text) => !this.stems.has(text)))];
    if (unknown.length > 0 && this.stems.size + unknown.length > STEM_MEMO_SIZE) {
      this.stems.clear();
      return [...new Set(words)];
    }
    return unknown;
  }

  /** Stems of the remembered words whose postings the cache does not hold. */
  private uncachedTerms(words: string[]): string[] {
    const terms = new Set<string>();
    for (const word of words) for (const term of this.stems.get(word) ?? []) if (!this.cache.term(term)) terms.add(term);
    return [...terms];
  }

  /**
   * Stems `unknown` with Postgres itself (to_tsvector 'english', remembered per word) and, in the
   * same statement, reads the statistics and the postings of those stems and of `terms`.
   */
  private async stemAndRead(unknown: string[], terms: string[]): Promise<{ read: IndexRead; asked: Set<string> }> {
    // Stems the cache holds are not read again (an unknown "refunds" stems to a cached "refund").
    // A stem starts with its word's first letters (the english stemmer changes endings), so the
    // cached terms sharing an unknown word's first two are enough to pass; any left out is only
    // read again.
    const prefixes = new Set(unknown.map((word) => word.slice(0, 2)));
    const cached = this.cache.termNames().filter((term) => prefixes.has(term.slice(0, 2)));
    const rows: IndexReadRow[] = await this.dataSource.query(
      `WITH words AS (
         SELECT t.word, tsvector_to_array(to_tsvector('english', t.word)) AS lexemes FROM unnest($1::text[]) AS t(word)
       )
       SELECT 3 AS kind, word AS name, NULL::int AS n, NULL::text AS chunks, NULL::text AS tokens, NULL::text AS version, array_to_json(lexemes)::text AS data
         FROM words
       UNION ALL
       SELECT 0, vertical::text, code::int, chunks::text, tokens::text, version::text, NULL FROM knowledge_search_stats
       UNION ALL
       ${postingsRows('ARRAY(SELECT unnest(lexemes) FROM words) || $2::text[]', 'AND NOT (term = ANY ($3::text[]))')}`,
      [unknown, terms, cached],
    );
    // What the statement read: a stem left out as cached is not (if the cache lets it go before
    // the search asks for it, the search reads it).
    const skipped = new Set(cached);
    const asked = new Set(terms);
    for (const row of rows) {
      if (Number(row.kind) !== 3) continue;
      const lexemes = JSON.parse(String(row.data)) as string[];
      this.stems.set(String(row.name), lexemes);
      for (const lexeme of lexemes) if (!skipped.has(lexeme)) asked.add(lexeme);
    }
    return { read: indexReadOf(rows.filter((row) => Number(row.kind) !== 3), base64), asked };
  }

  /** A reader whose first read is answered by `primed` when it asks for nothing else. */
  private primedReader(primed: { read: IndexRead; asked: Set<string> }): PostingsReader {
    let pending: typeof primed | undefined = primed;
    return {
      read: (terms, blocks) => {
        const first = pending;
        pending = undefined;
        if (first && blocks.length === 0 && terms.every((t) => first.asked.has(t))) {
          const postings = new Map([...first.read.postings].filter(([term]) => terms.includes(term)));
          return Promise.resolve({ ...first.read, postings });
        }
        return this.read(terms, blocks);
      },
      chunks: (ids, withText) => this.chunks(ids, withText),
      sampleChunks: (size) => this.reader.sampleChunks(size),
      stems: (words) => this.stemWords(words),
    };
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
  protected async read(terms: string[], blocks: number[]): Promise<IndexRead> {
    const rows: IndexReadRow[] = await this.dataSource.query(
      `SELECT 0 AS kind, vertical::text AS name, code::int AS n, chunks::text, tokens::text, version::text, NULL::text AS data
         FROM knowledge_search_stats
       UNION ALL
       ${postingsRows('$1::text[]')}
       UNION ALL
       SELECT 2, NULL, block, NULL, NULL, NULL, encode(data, 'base64') FROM knowledge_search_chunks WHERE block = ANY ($2::int[])`,
      [terms, blocks.filter(Number.isSafeInteger)],
    );
    return indexReadOf(rows, base64);
  }

  /** The rows of `ids` and, in the same statement, the statistics. */
  protected async chunks(ids: number[], withText: boolean): Promise<ChunkFetch> {
    const rows: ChunkFetchRow[] = await this.dataSource.query(
      `SELECT 0 AS kind, vertical::text, code::int, chunks::text, tokens::text, version::text,
              NULL::int AS "chunkId", NULL::text AS "itemId", NULL::int AS ord, NULL::text AS title, NULL::text AS text
         FROM knowledge_search_stats
       UNION ALL
       SELECT 1, NULL, NULL, NULL, NULL, NULL, id, item_id, ord, title, ${withText ? 'text' : "''"} FROM knowledge_chunks WHERE id = ANY ($1::int[])`,
      [ids.filter(Number.isSafeInteger)],
    );
    return chunkFetchOf(rows);
  }
}

/**
 * A read statement's rows of the terms in the SQL array `terms`: in two parts, each matching one
 * of the partial indexes of migration 1732190700000 (the size predicates must stay as they are
 * there), so that most rows come from an index-only scan instead of a heap page each.
 */
function postingsRows(terms: string, alsoWhere = ''): string {
  return `SELECT 1, term, NULL, NULL, NULL, NULL, encode(data, 'base64') FROM knowledge_postings
        WHERE term = ANY (${terms}) ${alsoWhere} AND octet_length(data) <= 1024
       UNION ALL
       SELECT 1, term, NULL, NULL, NULL, NULL, encode(data, 'base64') FROM knowledge_postings
        WHERE term = ANY (${terms}) ${alsoWhere} AND octet_length(data) > 1024`;
}

/** base64: 1.33 bytes per byte on the wire, against 2 for bytea's hex; line breaks are ignored. */
function base64(data: unknown): Buffer {
  return Buffer.from(String(data), 'base64');
}
