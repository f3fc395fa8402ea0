/**
 * The port through which retrieval asks the embeddings (src/embeddings, when on) for the
 * chunks nearest a question; KnowledgeService fuses them with BM25 (see fuseRankings).
 */
export interface SemanticHit {
  chunkId: number;
  itemId: string;
  title: string;
  ord: number;
  /** Cosine similarity with the question, -1..1. */
  score: number;
}

export interface SemanticSearchResult {
  /** 'hybrid': the hits are the nearest chunks; 'lexical-fallback': the embedding call failed or was late (no hits). */
  mode: 'hybrid' | 'lexical-fallback';
  hits: SemanticHit[];
}

export interface SemanticSearch {
  /** Whether embeddings are on. */
  active(): boolean;
  search(query: string, vertical: string | undefined, exclude: { has(id: number): boolean } | undefined): Promise<SemanticSearchResult>;
  /** A knowledge write happened: new or changed chunks need vectors. */
  requestSync(): void;
}

/** Reciprocal rank fusion constant (Cormack et al. 2009 use 60). */
export const RRF_K = 60;

/**
 * Orders items by reciprocal rank fusion of their lexical rank and their vector rank (best chunk
 * cosine): score = 1 / (k + lexical rank) + 1 / (k + vector rank); an item missing from one list
 * gets nothing from it. Returns the item ids, best first.
 */
export function fuseRankings(lexical: readonly string[], semantic: readonly string[], k = RRF_K): string[] {
  const score = new Map<string, number>();
  lexical.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + 1 / (k + i + 1)));
  semantic.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + 1 / (k + i + 1)));
  const first = new Map<string, number>();
  lexical.forEach((id, i) => first.set(id, i));
  return [...score.entries()].sort((a, b) => b[1] - a[1] || (first.get(a[0]) ?? Infinity) - (first.get(b[0]) ?? Infinity)).map(([id]) => id);
}
