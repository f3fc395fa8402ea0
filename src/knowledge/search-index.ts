/**
 * The one seam between the knowledge service and the database's full-text engine. Both
 * implementations score chunks with BM25 (bm25.ts: k1 1.2, b 0.75, a title occurrence of a term
 * counts as TITLE_WEIGHT text occurrences) and stem with the engine's own English stemmer.
 * Scores are comparable within one result list only, never across dialects.
 */
import type { DataSource } from 'typeorm';
import { PostgresSearchIndex } from './postgres-search-index';
import { SqliteSearchIndex } from './sqlite-search-index';

export { BM25_B, BM25_K1, TITLE_WEIGHT } from './bm25';

export interface SearchOptions {
  /** Only chunks of this vertical. */
  vertical?: string;
  /** Most chunks to return (best first). */
  limit: number;
}

/** A chunk that matched, best first. */
export interface ScoredChunk {
  chunkId: number;
  itemId: string;
  ord: number;
  title: string;
  text: string;
  /** BM25; higher is better. */
  score: number;
  /** Which of the query's terms (as given by extractQueryTerms) this chunk contains. */
  matchedTerms: string[];
}

export interface KnowledgeSearchIndex {
  /**
   * Chunks matching any content term of `query`, best first. A query with no content terms
   * (only stop words or punctuation) returns []. Never throws on odd input.
   */
  search(query: string, options: SearchOptions): Promise<ScoredChunk[]>;
}

/** The index for the data source's dialect. */
export function createKnowledgeSearchIndex(dataSource: DataSource): KnowledgeSearchIndex {
  return dataSource.options.type === 'postgres' ? new PostgresSearchIndex(dataSource) : new SqliteSearchIndex(dataSource);
}
