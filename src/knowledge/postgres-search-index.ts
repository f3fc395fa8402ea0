/**
 * Postgres search: real BM25 on top of the `tsv` column, not ts_rank.
 *
 * 1. The visitor's content terms are stemmed by Postgres itself (`to_tsvector('english', term)`),
 *    so query and index agree on every stem.
 * 2. The GIN index finds the candidates: chunks matching ANY stem (an OR tsquery).
 * 3. For each candidate and stem, `unnest(tsv)` gives the occurrences with their weights: weight A
 *    is the title, B the text. The term frequency is TITLE_WEIGHT x title hits + text hits.
 * 4. Document frequency per stem is counted over the candidates (every chunk containing the stem
 *    is a candidate, so this is the exact df within the searched scope); N and the average
 *    document length (`doc_len`, title + text words) come from the same scope.
 * 5. score = sum over stems of idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), with the
 *    non-negative idf ln(1 + (N - df + 0.5) / (df + 0.5)).
 */
import type { DataSource } from 'typeorm';
import { BM25_B, BM25_K1, TITLE_WEIGHT } from './bm25';
import { extractQueryTerms } from './query-terms';
import type { KnowledgeSearchIndex, ScoredChunk, SearchOptions } from './search-index';

/** A row as the query returns it: a scored chunk before its matched terms are worked out. */
type ChunkRow = Omit<ScoredChunk, 'matchedTerms'> & { lexemes: string[] };

/** A tsquery operand for one stem: quoted, with quotes and backslashes doubled. */
function tsqueryLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

export class PostgresSearchIndex implements KnowledgeSearchIndex {
  constructor(private readonly dataSource: DataSource) {}

  async search(query: string, options: SearchOptions): Promise<ScoredChunk[]> {
    const terms = extractQueryTerms(query);
    const limit = Math.max(1, Math.floor(options.limit));
    if (terms.length === 0) return [];

    // Stem each term with the index's own configuration; one term may yield no stem (a stop word
    // of Postgres' list) or, rarely, several.
    const stemRows: { term: number; lexeme: string }[] = await this.dataSource.query(
      `SELECT t.ord - 1 AS term, l.lexeme
         FROM unnest($1::text[]) WITH ORDINALITY AS t(word, ord)
         CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', t.word))) AS l(lexeme)`,
      [terms],
    );
    const termsOfLexeme = new Map<string, Set<number>>();
    for (const row of stemRows) {
      if (!termsOfLexeme.has(row.lexeme)) termsOfLexeme.set(row.lexeme, new Set());
      termsOfLexeme.get(row.lexeme)!.add(Number(row.term));
    }
    const lexemes = [...termsOfLexeme.keys()];
    if (lexemes.length === 0) return [];

    const params: unknown[] = [lexemes, lexemes.map(tsqueryLexeme).join(' | '), limit];
    let scope = '';
    if (options.vertical !== undefined) {
      params.push(options.vertical);
      scope = `vertical = $${params.length}`;
    }
    const rows: ChunkRow[] = await this.dataSource.query(
      `WITH cand AS (
         SELECT c.id, c.doc_len, c.tsv
           FROM knowledge_chunks c
          WHERE c.tsv @@ $2::tsquery ${scope ? `AND c.${scope}` : ''}
       ),
       hits AS (
         SELECT cand.id, cand.doc_len, u.lexeme,
                coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tf_title,
                coalesce(cardinality(u.weights), 0) - coalesce(cardinality(array_positions(u.weights, 'A')), 0) AS tf_text
           FROM cand CROSS JOIN LATERAL unnest(cand.tsv) AS u
          WHERE u.lexeme = ANY ($1::text[])
       ),
       df AS (
         SELECT lexeme, count(*)::float8 AS n_hit FROM hits GROUP BY lexeme
       ),
       stats AS (
         SELECT count(*)::float8 AS n, greatest(coalesce(avg(doc_len), 1), 1)::float8 AS avgdl
           FROM knowledge_chunks ${scope ? `WHERE ${scope}` : ''}
       ),
       scored AS (
         SELECT h.id,
                sum(
                  ln(1 + (s.n - d.n_hit + 0.5) / (d.n_hit + 0.5))
                  * ((h.tf_title * ${TITLE_WEIGHT} + h.tf_text) * ${BM25_K1 + 1})
                  / ((h.tf_title * ${TITLE_WEIGHT} + h.tf_text)
                     + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * h.doc_len / s.avgdl))
                ) AS score,
                array_agg(h.lexeme) AS lexemes
           FROM hits h JOIN df d USING (lexeme) CROSS JOIN stats s
          GROUP BY h.id
       )
       SELECT c.id AS "chunkId", c.item_id AS "itemId", c.ord, c.title, c.text, scored.score, scored.lexemes
         FROM scored JOIN knowledge_chunks c ON c.id = scored.id
        ORDER BY scored.score DESC, c.id ASC
        LIMIT $3`,
      params,
    );

    return rows.map((r) => {
      const matched = new Set<number>();
      for (const lexeme of r.lexemes) for (const t of termsOfLexeme.get(lexeme) ?? []) matched.add(t);
      return {
        chunkId: Number(r.chunkId),
        itemId: r.itemId,
        ord: Number(r.ord),
        title: r.title,
        text: r.text,
        score: Number(r.score),
        matchedTerms: terms.filter((_, i) => matched.has(i)),
      };
    });
  }
}
