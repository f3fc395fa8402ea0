/** A chunk that matched, best first. */
export interface ScoredChunk {
  chunkId: number;
  itemId: string;
  ord: number;
  title: string;
  text: string;
  /** BM25; higher is better. */
  score: number;
  /** Which of the query's terms (their `text`) this chunk contains, in query order. */
  matchedTerms: string[];
}
