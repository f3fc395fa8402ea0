/**
 * The admin list of knowledge items: newest first, or for a search the items the index finds
 * ranked by relevance, then the items merely containing the text.
 */
import { type FindOptionsWhere, In, IsNull, type Repository } from 'typeorm';
import { DEFAULT_RELEVANCE } from '../retrieval/relevance';
import { KnowledgeItem, KnowledgeVertical } from './knowledge-item.entity';
import type { KnowledgeListOptions } from './knowledge-types';
import type { ScoredChunk } from './search-index';

/** Weight of an item's 2nd, 3rd, ... best chunk relative to the one before it (admin list). */
const NEXT_CHUNK_DAMPING = DEFAULT_RELEVANCE.nextChunkDamping;
/** Chunks beyond this many per item add nothing to its score (admin list). */
const CHUNKS_PER_ITEM_SCORED = DEFAULT_RELEVANCE.chunksPerItem;
/** Chunks fetched when the admin list is searched (ranking every matching item). */
const LIST_CANDIDATES = 2000;

/** An item's aggregated relevance. */
interface RankedItem {
  itemId: string;
  title: string;
  score: number;
  /** Its matching chunks, best first. */
  chunks: ScoredChunk[];
}

/** Groups chunks by item and scores each item: best chunk + damped share of its next best (the admin list's order). */
export function rankItems(chunks: ScoredChunk[]): RankedItem[] {
  const byItem = new Map<string, RankedItem>();
  for (const chunk of chunks) {
    let item = byItem.get(chunk.itemId);
    if (!item) {
      item = { itemId: chunk.itemId, title: chunk.title, score: 0, chunks: [] };
      byItem.set(chunk.itemId, item);
    }
    item.chunks.push(chunk);
  }
  for (const item of byItem.values()) {
    item.chunks.sort((a, b) => b.score - a.score || a.ord - b.ord);
    item.score = item.chunks
      .slice(0, CHUNKS_PER_ITEM_SCORED)
      .reduce((sum, chunk, i) => sum + chunk.score * NEXT_CHUNK_DAMPING ** i, 0);
  }
  return [...byItem.values()].sort((a, b) => b.score - a.score || a.itemId.localeCompare(b.itemId));
}

/** Searches the index for the admin list: chunks best first, with or without the thesaurus' related words. */
export type ChunkSearch = (query: string, vertical: string | undefined, limit: number, expand: boolean) => Promise<ScoredChunk[]>;

/**
 * Items for the admin list: newest (last updated) first; with `search`, the items the index
 * finds ranked by relevance, followed by items that merely contain the text (so typing part of
 * a word still finds something), newest first.
 */
export async function listItems(repo: Repository<KnowledgeItem>, searchChunks: ChunkSearch, options: KnowledgeListOptions = {}): Promise<KnowledgeItem[]> {
  // Control characters are never in what admins search for (and a NUL would cut SQLite's LIKE
  // pattern short, to '%', which matches everything).
  // eslint-disable-next-line no-control-regex
  const search = (options.search ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 500);
  const newestFirst = { updatedAt: 'DESC', createdAt: 'DESC', id: 'ASC' } as const;
  const where: FindOptionsWhere<KnowledgeItem> = {};
  if (options.vertical !== undefined) where.vertical = options.vertical as KnowledgeVertical;
  if (options.jurisdiction !== undefined) {
    where.jurisdiction = options.jurisdiction === 'none' ? IsNull() : options.jurisdiction;
    if (options.subRegion !== undefined && options.jurisdiction !== 'none') where.subRegion = options.subRegion;
  }
  if (search === '') return repo.find({ where, order: newestFirst });

  // The items with the admin's own words, by BM25; then those found only through related words
  // of the support thesaurus (a rare synonym would otherwise outrank the word itself: "refund"
  // put "Expenses and reimbursement" above "Returns and refunds"); then plain substring matches.
  const literal = rankItems(await searchChunks(search, options.vertical, LIST_CANDIDATES, false)).map((r) => r.itemId);
  const seen = new Set(literal);
  const related = rankItems(await searchChunks(search, options.vertical, LIST_CANDIDATES, true))
    .map((r) => r.itemId)
    .filter((id) => !seen.has(id));
  const rankedIds = [...literal, ...related];
  const found = rankedIds.length > 0 ? await repo.findBy({ ...where, id: In(rankedIds) }) : [];
  const byId = new Map(found.map((item) => [item.id, item]));

  const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const qb = repo
    .createQueryBuilder('item')
    .where(
      `(LOWER(item.title) LIKE :pattern ESCAPE '\\' OR LOWER(item.category) LIKE :pattern ESCAPE '\\'
        OR LOWER(item.tags) LIKE :pattern ESCAPE '\\' OR LOWER(item.content) LIKE :pattern ESCAPE '\\')`,
      { pattern },
    )
    .orderBy('item.updatedAt', 'DESC')
    .addOrderBy('item.createdAt', 'DESC')
    .addOrderBy('item.id', 'ASC');
  if (options.vertical !== undefined) qb.andWhere('item.vertical = :vertical', { vertical: options.vertical });
  if (where.jurisdiction !== undefined) {
    if (options.jurisdiction === 'none') qb.andWhere('item.jurisdiction IS NULL');
    else qb.andWhere('item.jurisdiction = :jurisdiction', { jurisdiction: options.jurisdiction });
    if (where.subRegion !== undefined) qb.andWhere('item.subRegion = :subRegion', { subRegion: options.subRegion });
  }
  const containing = await qb.getMany();

  const result = rankedIds.map((id) => byId.get(id)).filter((item): item is KnowledgeItem => item !== undefined);
  const listed = new Set(result.map((item) => item.id));
  for (const item of containing) if (!listed.has(item.id)) result.push(item);
  return result;
}
