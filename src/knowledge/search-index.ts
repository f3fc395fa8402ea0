/**
 * The one seam between the knowledge service and the database's full-text index. Both
 * implementations score chunks with BM25 (bm25-scoring.ts: k1 1.2, b 0.75, a title occurrence of a term
 * counts as TITLE_WEIGHT text occurrences) over the inverted index the database triggers keep
 * (migrations 1732190600000-knowledge-search), and stem with the engine's own English stemmer
 * (FTS5 porter on SQLite, Postgres 'english'). Scores are comparable within one result list only,
 * never across dialects.
 */
import type { DataSource } from 'typeorm';
import type { KnowledgeSearchIndex } from './search-index-types';
import { PostgresSearchIndex } from './postgres-search-index';
import { SqliteSearchIndex } from './sqlite-search-index';

export { BM25_B, BM25_K1, TITLE_WEIGHT } from '../retrieval/bm25-parameters';
export type { KnowledgeSearchIndex, ScoredChunk, ScoredSearch, SearchOptions, WeightedTerm } from './search-index-types';

export type { WarmReport } from './cache-warmer';


/** The index for the data source's dialect. */
export function createKnowledgeSearchIndex(dataSource: DataSource): KnowledgeSearchIndex {
  return dataSource.options.type === 'postgres' ? new PostgresSearchIndex(dataSource) : new SqliteSearchIndex(dataSource);
}
