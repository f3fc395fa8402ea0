/**
 * SQLite search: FTS5's built-in bm25() over `knowledge_chunks_fts` (porter-stemmed), with the
 * title column weighted TITLE_WEIGHT times the text column. The MATCH expression is built only
 * from extractQueryTerms output, each term double-quoted, so visitor input can never be read as
 * FTS5 syntax.
 */
import type { DataSource } from 'typeorm';
import { extractQueryTerms } from './query-terms';
import { TITLE_WEIGHT } from './bm25';
import type { KnowledgeSearchIndex, ScoredChunk, SearchOptions } from './search-index';

/** A row as the query returns it: a scored chunk before its matched terms are worked out. */
type ChunkRow = Omit<ScoredChunk, 'matchedTerms'>;

/** An FTS5 string literal: the term in double quotes, inner quotes doubled. */
function ftsString(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

export class SqliteSearchIndex implements KnowledgeSearchIndex {
  constructor(private readonly dataSource: DataSource) {}

  async search(query: string, options: SearchOptions): Promise<ScoredChunk[]> {
    const terms = extractQueryTerms(query);
    const limit = Math.max(1, Math.floor(options.limit));
    if (terms.length === 0) return [];

    const match = terms.map(ftsString).join(' OR ');
    const params: unknown[] = [match];
    let sql = `SELECT c.id AS chunkId, c.item_id AS itemId, c.ord AS ord, c.title AS title, c.text AS text,
        -bm25(knowledge_chunks_fts, ${TITLE_WEIGHT}, 1.0) AS score
      FROM knowledge_chunks_fts
      JOIN knowledge_chunks c ON c.id = knowledge_chunks_fts.rowid
      WHERE knowledge_chunks_fts MATCH ?`;
    if (options.vertical !== undefined) {
      sql += ' AND c.vertical = ?';
      params.push(options.vertical);
    }
    sql += ' ORDER BY score DESC, c.id ASC LIMIT ?';
    params.push(limit);
    const rows: ChunkRow[] = await this.dataSource.query(sql, params);
    if (rows.length === 0) return [];

    const matched = await this.matchedTerms(terms, rows.map((r) => r.chunkId));
    return rows.map((r) => ({
      chunkId: Number(r.chunkId),
      itemId: r.itemId,
      ord: Number(r.ord),
      title: r.title,
      text: r.text,
      score: Number(r.score),
      matchedTerms: terms.filter((_, i) => matched.get(Number(r.chunkId))?.has(i)),
    }));
  }

  /** For each chunk id, the indexes (into `terms`) of the terms it contains, via the index's stemmer. */
  private async matchedTerms(terms: string[], chunkIds: number[]): Promise<Map<number, Set<number>>> {
    const idList = chunkIds.map((id) => Number(id)).filter(Number.isInteger).join(',');
    const parts = terms.map(
      (_, i) => `SELECT ${i} AS term, rowid AS chunkId FROM knowledge_chunks_fts WHERE knowledge_chunks_fts MATCH ? AND rowid IN (${idList})`,
    );
    const rows: { term: number; chunkId: number }[] = await this.dataSource.query(parts.join(' UNION ALL '), terms.map(ftsString));
    const byChunk = new Map<number, Set<number>>();
    for (const row of rows) {
      const id = Number(row.chunkId);
      if (!byChunk.has(id)) byChunk.set(id, new Set());
      byChunk.get(id)!.add(Number(row.term));
    }
    return byChunk;
  }
}
