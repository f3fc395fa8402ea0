/**
 * SQLite search: BM25 exactly as FTS5's bm25() computed it (title column weighted TITLE_WEIGHT,
 * IDF ln((N - df + 0.5) / (df + 0.5)) floored at 1e-6, N, df and the average length over all
 * chunks) but over the inverted index `knowledge_postings` (see postings-format.ts), scored in process.
 *
 * The triggers of migration 1732190600000 tokenize each chunk with FTS5 itself (a contentless
 * `porter unicode61 remove_diacritics 2` table read back through fts5vocab), so the index holds
 * FTS5's porter stems. Query words are stemmed here by fts5Tokens(), a port of that tokenizer and
 * stemmer, checked against FTS5 by the spec. Visitor input only ever becomes bound parameters.
 */
import type { DataSource } from 'typeorm';
import { fts5Tokens } from '../retrieval/fts5-tokenizer';
import { extractQueryTerms } from '../retrieval/query-terms';
import { ChunkFetch, chunkFetchOf, ChunkFetchRow, IndexRead, indexReadOf, IndexReadRow, StemmedQuery } from './postings-search';
import { PostingsSearchIndex } from './postings-search-index';
import { readQuery } from '../database/sql';
import type { KnowledgeSearchIndex, ScoredChunk, ScoredSearch, SearchOptions, WeightedTerm } from './search-index-types';
/** Chunk ids per IN list of the final fetch. */
const MAX_IN_LIST = 500;

export class SqliteSearchIndex extends PostingsSearchIndex implements KnowledgeSearchIndex {
  constructor(dataSource: DataSource) {
    // FTS5's bm25(): statistics over all chunks, whatever the vertical searched.
    super(dataSource, { formula: 'fts5', scopedStatistics: false, avgdlFloor: 0 });
  }

  async search(query: string | WeightedTerm[], options: SearchOptions): Promise<ScoredChunk[]> {
    const words = typeof query === 'string' ? extractQueryTerms(query).map((text) => ({ text, weight: 1 })) : query;
    return (await this.searchScored(words, options)).chunks;
  }

  async searchScored(words: WeightedTerm[], options: SearchOptions): Promise<ScoredSearch> {
    const stemmed = stemQuery(words);
    if (stemmed.terms.length === 0) return { chunks: [], wordIdf: words.map(() => 0) };
    return this.searchStemmed(this.reader, stemmed, options);
  }

  protected stemWords(words: string[]): Promise<string[][]> {
    return Promise.resolve(words.map((word) => fts5Tokens(word)));
  }

  /** Statistics, each term's rows concatenated (postings-format.ts), chunk records. */
  protected async read(terms: string[], blocks: number[]): Promise<IndexRead> {
    // Terms are bound (at most 48 words make a query); block numbers are integers, inlined.
    const termList = terms;
    const blockList = blocks.filter(Number.isSafeInteger);
    let sql = 'SELECT 0 AS kind, vertical AS name, code AS n, chunks, tokens, version, NULL AS data FROM knowledge_search_stats';
    if (termList.length > 0) {
      // Rows carry their block header, so their order does not matter (no sort in the aggregate).
      sql += ` UNION ALL
        SELECT 1, term, NULL, NULL, NULL, NULL, CAST(group_concat(data, '') AS BLOB)
          FROM knowledge_postings WHERE term IN (${termList.map(() => '?').join(', ')}) GROUP BY term`;
    }
    if (blockList.length > 0) {
      sql += ` UNION ALL SELECT 2, NULL, block, NULL, NULL, NULL, data FROM knowledge_search_chunks WHERE block IN (${blockList.join(', ')})`;
    }
    const rows: IndexReadRow[] = await readQuery(this.dataSource, sql, termList);
    return indexReadOf(rows, (data) => (Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'latin1')));
  }

  /** The rows of `ids` and, in the statement that reads the last of them, the statistics. */
  protected async chunks(ids: number[], withText: boolean): Promise<ChunkFetch> {
    const list = ids.filter(Number.isSafeInteger);
    const rows: ChunkFetchRow[] = [];
    for (let i = 0; i < list.length; i += MAX_IN_LIST) {
      const slice = list.slice(i, i + MAX_IN_LIST);
      const last = i + MAX_IN_LIST >= list.length;
      rows.push(...(await readQuery<ChunkFetchRow[]>(this.dataSource, `${last ? `${STATS_ROWS} UNION ALL ` : ''}${chunkRows(slice, withText)}`)));
    }
    if (list.length === 0) rows.push(...(await readQuery<ChunkFetchRow[]>(this.dataSource, STATS_ROWS)));
    return chunkFetchOf(rows);
  }
}

/** ChunkFetchRow: the statistics of each vertical. */
const STATS_ROWS = `SELECT 0 AS kind, vertical, code, chunks, tokens, version,
  NULL AS chunkId, NULL AS itemId, NULL AS ord, NULL AS title, NULL AS text FROM knowledge_search_stats`;

/** ChunkFetchRow: the chunks with these ids (integers, inlined). */
function chunkRows(ids: number[], withText: boolean): string {
  // Named here too: a statement without STATS_ROWS ahead takes its column names from this SELECT.
  return `SELECT 1 AS kind, NULL AS vertical, NULL AS code, NULL AS chunks, NULL AS tokens, NULL AS version,
    id AS chunkId, item_id AS itemId, ord, title, ${withText ? 'text' : "''"} AS text FROM knowledge_chunks WHERE id IN (${ids.join(', ')})`;
}

/**
 * The query's words as FTS5 would index them. Like the MATCH expression the index used to run
 * (every word a quoted phrase, OR'ed), each word counts on its own: a stem given by two words (or
 * by a word and a related word) adds both their weights. A word the tokenizer splits in several
 * tokens (possible only outside ASCII) matches each token separately (FTS5 would have asked for
 * the tokens as an adjacent phrase; the index keeps no positions).
 */
function stemQuery(words: WeightedTerm[]): StemmedQuery {
  const byTerm = new Map<string, { term: string; weight: number; words: number[] }>();
  words.forEach((word, i) => {
    if (!(word.weight > 0)) return;
    for (const term of fts5Tokens(word.text)) {
      let entry = byTerm.get(term);
      if (!entry) {
        entry = { term, weight: 0, words: [] };
        byTerm.set(term, entry);
      }
      entry.weight += word.weight;
      if (!entry.words.includes(i)) entry.words.push(i);
    }
  });
  return { words: words.map((w) => w.text), terms: [...byTerm.values()] };
}
