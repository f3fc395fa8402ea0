/** The types of the search-index seam (search-index.ts), apart so that the implementations can use them without a circle. */
import type { ScoredChunk } from '../retrieval/scored-chunk';
import type { ChunkIdSet } from './bm25-scoring';
import type { WarmReport } from './cache-warmer';

export type { ScoredChunk };

export interface SearchOptions {
  /** Only chunks of this vertical. */
  vertical?: string;
  /** Chunks never returned, whatever they score (another jurisdiction's legal chunks). */
  exclude?: ChunkIdSet;
  /** Most chunks to return (best first). */
  limit: number;
  /** false: ScoredChunk.text is '' (a caller that reads the text of a few chunks only). */
  text?: boolean;
}

/**
 * A word to search for and the weight of its BM25 contribution: 1 for the visitor's own words,
 * less for related words (KnowledgeService's thesaurus expansion). Words are expected as
 * extractQueryTerms produces them (lower case, letters and digits).
 */
export interface WeightedTerm {
  text: string;
  weight: number;
}

/** A search with what the scorer knows of the query's words (see searchScored). */
export interface ScoredSearch {
  chunks: ScoredChunk[];
  /**
   * Per query word (in the order given): the IDF ln(1 + (N - df + 0.5) / (df + 0.5)) of its index
   * term over all verticals, whatever the dialect's scoring formula and scope (df 0 when the
   * corpus does not know the word; 0 for a word the engine drops). Lets callers weigh which of the question's
   * words a passage covers.
   */
  wordIdf: number[];
}

export interface KnowledgeSearchIndex {
  /** search(), also returning the IDF of each query word (ScoredSearch.wordIdf). */
  searchScored(query: WeightedTerm[], options: SearchOptions): Promise<ScoredSearch>;
  /**
   * Chunks matching any of the terms, best first, scored by the weighted sum of the terms' BM25
   * contributions, in one pass (the `limit` best by that sum, exactly). A string query is reduced
   * to its content terms (extractQueryTerms), each of weight 1. No content terms: []. Never
   * throws on odd input.
   */
  search(query: string | WeightedTerm[], options: SearchOptions): Promise<ScoredChunk[]>;
  /**
   * Reads into memory the postings searches are most likely to need (the terms searched last
   * before writes emptied the cache, then the corpus' most frequent terms; see CacheWarmer), or
   * waits for the warm-up under way. Never needed for correct results, only for fast ones.
   */
  warm(): Promise<WarmReport>;
  /** Warms soon, in the background, once writes pause (called after every write). */
  scheduleWarm(): void;
  /** The texts of these chunks (cached with the search cache's versions; a deleted chunk has none). */
  chunkTexts(ids: number[]): Promise<Map<number, string>>;
  /** No background warm-up until the returned function is called (a write in many slices). */
  holdWarming(): () => void;
  /**
   * This server makes every write to the index and calls written() after each (the embedded
   * mode): warm searches may then be answered from memory (PostingsSearchIndex.trustOwnWrites).
   */
  trustOwnWrites(): void;
  /** A write to the index ended here (committed or not). */
  written(): void;
  /** Stops background warming and waits for a warm-up under way (before the database closes). */
  close(): Promise<void>;
}
