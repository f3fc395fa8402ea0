/**
 * What a knowledge gap is about: the stemmed content words of a question, and when two questions
 * ask the same thing. Reuses the retrieval module's analysis (stop words, question fillers, the
 * crosslingual lexicon: a question in Spanish is described by the English of its words, so it
 * groups with the same question asked in English) and the index's Porter stemmer (fts5Tokens), so
 * "refunds" and "refunded" are one term.
 */
import { fts5Tokens } from '../retrieval/fts5-tokenizer';
import { analyseQuery } from '../retrieval/query-terms';

/** Most terms kept for one question. */
export const MAX_GAP_TERMS = 16;
/** Longest term stored (knowledge_gap_terms.term). */
const MAX_TERM_CHARS = 60;
/** Two term sets this alike (shared terms / all terms) ask the same thing. */
export const SAME_QUESTION = 0.5;

/** The stemmed content words of a question, sorted, without duplicates; [] when it has none. */
export function gapTerms(question: string): string[] {
  const analysed = analyseQuery(question);
  const translations = analysed.expansions.filter((e) => e.translation);
  let words = analysed.terms;
  if (translations.length > 0) {
    const covered = new Set(translations.flatMap((t) => t.for));
    words = [...translations.map((t) => t.term), ...analysed.terms.filter((t) => !covered.has(t))];
  }
  const stems = new Set<string>();
  for (const word of words) for (const stem of fts5Tokens(word)) if (stem.length <= MAX_TERM_CHARS) stems.add(stem);
  return [...stems].sort().slice(0, MAX_GAP_TERMS);
}

/** Jaccard similarity of two term sets: shared terms over all terms (0 when either is empty). */
export function termSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const set = new Set(a);
  let shared = 0;
  for (const term of new Set(b)) if (set.has(term)) shared += 1;
  return shared / (set.size + new Set(b).size - shared);
}

/** A group a question may join. */
export interface GapCandidate {
  id: string;
  terms: string[];
  question: string;
  lastAskedAt: number;
}

/**
 * Decides which existing group (if any) a failed question belongs to. The default compares
 * stemmed terms; embeddings can provide GAP_MATCHER to compare meanings
 * instead (candidates are still the groups sharing a term with the question, plus whatever the
 * matcher's own index adds).
 */
export interface GapMatcher {
  match(question: { text: string; terms: string[]; vertical: string }, candidates: GapCandidate[]): Promise<GapCandidate | undefined> | GapCandidate | undefined;
}
export const GAP_MATCHER = Symbol('GAP_MATCHER');

/** The most alike candidate at SAME_QUESTION or above (the most recently asked on a tie). */
export const termGapMatcher: GapMatcher = {
  match(question, candidates) {
    let best: GapCandidate | undefined;
    let bestScore = 0;
    for (const candidate of candidates) {
      const score = termSimilarity(question.terms, candidate.terms);
      if (score < SAME_QUESTION) continue;
      if (score > bestScore || (score === bestScore && best && candidate.lastAskedAt > best.lastAskedAt)) {
        best = candidate;
        bestScore = score;
      }
    }
    return best;
  },
};
