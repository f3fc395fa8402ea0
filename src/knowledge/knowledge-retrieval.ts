/**
 * Finding knowledge: the passages that match a query (search) and the items that answer a question
 * (retrieve), per ITEM, with a relevance floor and a calibrated confidence (src/retrieval/
 * relevance.ts), optionally fused with embeddings (semantic-search.ts). Chunks of items being
 * (re)indexed in slices are never returned (sliced-indexing.ts).
 */
import { type DataSource, In, type Repository } from 'typeorm';
import { analyseQuery, termWeight } from '../retrieval/query-terms';
import {
  citable,
  ELSEWHERE_MARGIN,
  EXPANSION_WEIGHT,
  rankItems as rankAnswers,
  RankedItem as RankedAnswer,
  relevanceFor,
  replyConfidence,
  SUGGEST_CONFIDENCE,
  WEAK_MATCH,
} from '../retrieval/relevance';
import { allowedKeys, isAllowed } from '../retrieval/jurisdiction';
import { portableSql, readQuery } from '../database/sql';
import type { KnowledgeChunk } from './knowledge-chunk.entity';
import type { KnowledgePassage, KnowledgeSearchOptions, Retrieval, RetrieveOptions } from './knowledge-types';
import type { KnowledgeSearchIndex, ScoredChunk } from './search-index';
import { fuseRankings, type SemanticSearch, type SemanticSearchResult } from './semantic-search';
import { withoutHidden, type SlicedIndexing } from './sliced-indexing';
import type { SourceUrls } from './source-urls';

/** Chunks fetched from the index before grouping by item. */
const RETRIEVAL_CANDIDATES = 200;

export function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** The item ranked most relevant after `first` (with embeddings, the fused order may put a less relevant one second). */
function runnerUpOf(ranked: readonly RankedAnswer[], first: RankedAnswer): RankedAnswer | undefined {
  let best: RankedAnswer | undefined;
  for (const item of ranked) if (item !== first && (!best || item.relevance > best.relevance)) best = item;
  return best;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
/** What the knowledge service lends retrieval. */
export interface KnowledgeRetrievalDeps {
  dataSource: DataSource;
  chunks: Repository<KnowledgeChunk>;
  index: KnowledgeSearchIndex;
  slices: SlicedIndexing;
  urls: SourceUrls;
  /** Embeddings, while they are attached (hybrid retrieval). */
  semantic(): SemanticSearch | undefined;
}

export class KnowledgeRetrieval {
  constructor(private readonly deps: KnowledgeRetrievalDeps) {}

  /** Best-matching passages, regardless of item (raw BM25 scores). */
  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgePassage[]> {
    const limit = clampInt(options.limit, 10, 1, 100);
    // The first search also reads the source URLs that retrievals cite (see source-urls.ts).
    if (!this.deps.urls.loaded) await this.deps.urls.load();
    const chunks = await this.searchChunks(query, options.vertical, limit, true);
    return chunks.map((c) => ({ itemId: c.itemId, chunkId: c.chunkId, title: c.title, text: c.text, score: c.score }));
  }

  /** The items (and their best passages) that answer `query`; see Retrieval and RetrieveOptions.elsewhere. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<Retrieval> {
    const here = await this.retrieveIn(query, options);
    const others = (options.elsewhere ?? []).filter((v) => v !== options.vertical);
    if (others.length === 0 || (here.answered && here.match >= WEAK_MATCH)) return here;
    let best: { vertical: string; match: number } | undefined;
    for (const vertical of others) {
      const there = await this.retrieveIn(query, { vertical, limit: 1, passagesPerItem: 1, relevance: options.relevance, semantic: false });
      if (there.answered && there.match >= SUGGEST_CONFIDENCE && there.match > (best?.match ?? 0)) best = { vertical, match: there.match };
    }
    if (!best) return here;
    if (!here.answered) return { ...here, suggestedVertical: best.vertical };
    if (best.match - here.match < ELSEWHERE_MARGIN) return here;
    // The question belongs to the other vertical: nothing here is cited (and nothing is claimed).
    return { ...here, sources: [], passages: [], answered: false, confidence: 0, suggestedVertical: best.vertical };
  }

  /** retrieve() within options.vertical only. */
  private retrieveIn(query: string, options: RetrieveOptions): Promise<Retrieval> {
    return this.deps.slices.tracked(this.retrieveInUntracked(query, options));
  }

  private async retrieveInUntracked(query: string, options: RetrieveOptions): Promise<Retrieval> {
    const { terms, expansions: related, weights: analysedWeights, topic } = analyseQuery(query, options.vertical);
    const empty: Retrieval = { sources: [], passages: [], confidence: 0, match: 0, answered: false, coverage: 0, terms };
    // Nothing but numbers and generic words ("thanks 9"): no passage can be said to answer it.
    if (terms.length === 0 || !topic) return empty;
    const limit = clampInt(options.limit, 4, 1, 20);
    const perItem = clampInt(options.passagesPerItem, 2, 1, 10);
    const params = relevanceFor(options.vertical, options.relevance);

    // The candidates without their text: only the passages chosen below need it.
    const expansions = options.expand === false ? [] : related;
    const weights = analysedWeights ?? terms.map((t) => termWeight(t, options.vertical));
    // A legal question: other jurisdictions' chunks are left out while ranking (so they cannot
    // crowd the visitor's out of the candidates), and checked again on the candidates found (a
    // chunk written between the two reads).
    const allowed = options.jurisdiction === undefined ? undefined : allowedKeys(options.jurisdiction);
    const outside = allowed ? this.chunksOutside(allowed, options.vertical) : Promise.resolve(undefined);
    // Embeddings on: the question's vector is asked for while BM25 runs (it falls back to BM25
    // alone when the call fails or is late: mode 'lexical-fallback'). Chunks of items being
    // (re)indexed in slices are left out of both.
    const attached = this.deps.semantic();
    const semantic = options.semantic !== false && attached?.active() ? attached : undefined;
    const near: Promise<SemanticSearchResult> | undefined = semantic && outside.then((excluded) => semantic.search(query, options.vertical, this.deps.slices.excluded(excluded)));
    near?.catch(() => undefined);
    const exclude = this.deps.slices.excluded(await outside);
    const found = await this.deps.index.searchScored(
      [...terms.map((text, i) => ({ text, weight: weights[i] })), ...expansions.map((e) => ({ text: e.term, weight: e.weight ?? EXPANSION_WEIGHT }))],
      { vertical: options.vertical, limit: RETRIEVAL_CANDIDATES, text: false, exclude },
    );
    let chunks = withoutHidden(found.chunks, exclude);
    const vectors = near && (await near.catch((): SemanticSearchResult => ({ mode: 'lexical-fallback', hits: [] })));
    const tag = (r: Retrieval): Retrieval => (vectors ? { ...r, mode: vectors.mode } : r);
    if (vectors && vectors.hits.length > 0) {
      // The nearest chunks BM25 did not find join the candidates (matching no word of the question).
      const have = new Set(chunks.map((c) => c.chunkId));
      const added = vectors.hits.filter((h) => !have.has(h.chunkId)).map((h) => ({ chunkId: h.chunkId, itemId: h.itemId, ord: h.ord, title: h.title, text: '', score: 0, matchedTerms: [] }));
      chunks = [...chunks, ...added];
    }
    let keys: Map<number, string | null> | undefined;
    if (allowed) {
      keys = await this.chunkJurisdictions(chunks.map((c) => c.chunkId));
      chunks = chunks.filter((c) => keys!.has(c.chunkId) && isAllowed(keys!.get(c.chunkId)!, allowed));
    }
    let ranked = rankAnswers(chunks, { terms, weights, expansions, idf: found.wordIdf }, params);
    if (vectors && vectors.hits.length > 0) {
      // Hybrid: items ordered by reciprocal rank fusion of the BM25 ranking and the vector ranking
      // (an item's best chunk). Confidence and the relevance floor stay those of the words.
      const byId = new Map(ranked.map((item) => [item.itemId, item]));
      const nearestItems = [...new Set(vectors.hits.map((h) => h.itemId))].filter((id) => byId.has(id));
      const fused = fuseRankings(ranked.map((item) => item.itemId), nearestItems).map((id) => byId.get(id)!);
      // Items that clear the relevance floor stay ahead of those that do not: fusion reorders the
      // answerable ones, it never puts an uncitable item first and so turns a found answer into
      // "not found" (measured with plain RRF on the eval's mock vectors: not found rose, R@1 fell).
      ranked = [...fused.filter((item) => item.match >= params.floor), ...fused.filter((item) => item.match < params.floor)];
    }
    const candidates = options.explain ? { candidates: ranked.slice(0, 30) } : {};
    if (ranked.length === 0) return tag({ ...empty, ...candidates });
    const top = citable(ranked, limit, params);
    if (top.length === 0) return tag({ ...empty, match: round(ranked[0].match), coverage: round(ranked[0].coverage), ...candidates });

    const bestChunk = Math.max(...top.map((item) => item.chunks[0].score));
    const passages: KnowledgePassage[] = [];
    for (const item of top) {
      const chosen = item.chunks.slice(0, perItem).sort((a, b) => a.ord - b.ord);
      for (const chunk of chosen) {
        passages.push({
          itemId: chunk.itemId,
          chunkId: chunk.chunkId,
          title: chunk.title,
          text: chunk.text,
          score: round(bestChunk > 0 ? chunk.score / bestChunk : 0),
        });
      }
    }
    const texts = await this.chunkTexts(passages.map((p) => p.chunkId));
    const urls = await this.deps.urls.of(top.map((item) => item.itemId));
    const best = top[0].relevance;
    return tag({
      sources: top.map((item) => {
        const passage = texts.get(item.chunks[0].chunkId);
        const url = urls.get(item.itemId);
        return { id: item.itemId, title: item.title, score: round(best > 0 ? Math.min(1, item.relevance / best) : 0), ...(passage ? { passage } : {}), ...(url ? { url } : {}) };
      }),
      // A chunk deleted since it was ranked has no text to quote.
      passages: passages.filter((p) => texts.has(p.chunkId)).map((p) => ({ ...p, text: texts.get(p.chunkId) as string })),
      confidence: round(replyConfidence(top[0], runnerUpOf(ranked, top[0]))),
      match: round(top[0].match),
      answered: true,
      coverage: round(top[0].coverage),
      terms,
      ...candidates,
      ...(keys && options.jurisdiction ? { generalOnly: top.every((item) => keys!.get(item.chunks[0].chunkId) === null) } : {}),
    });
  }


  /** Chunks with a jurisdiction outside `allowed` (of one vertical, or of all). */
  private async chunksOutside(allowed: readonly string[], vertical: string | undefined): Promise<Set<number>> {
    const params: unknown[] = [];
    let sql = 'SELECT id FROM knowledge_chunks WHERE jurisdiction IS NOT NULL';
    if (vertical !== undefined) {
      params.push(vertical);
      sql += ` AND vertical = $${params.length}`;
    }
    if (allowed.length > 0) {
      sql += ` AND jurisdiction NOT IN (${allowed.map((key) => `$${params.push(key)}`).join(', ')})`;
    }
    const rows: { id: number | string }[] = await readQuery(this.deps.dataSource, portableSql(this.deps.dataSource, sql), params);
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** The jurisdiction key of these chunks, by id (chunks that no longer exist are left out). */
  private async chunkJurisdictions(ids: number[]): Promise<Map<number, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.deps.chunks.find({ select: { id: true, jurisdiction: true }, where: { id: In(ids) } });
    return new Map(rows.map((row) => [Number(row.id), row.jurisdiction ?? null]));
  }

  /**
   * Chunks for `query`, best first: BM25 over the visitor's own terms plus EXPANSION_WEIGHT x BM25
   * over related thesaurus words, ranked together in one pass of the index (the `limit` best by
   * that sum, exactly). A chunk matched through a related word counts as matching the visitor's
   * term it stands in for.
   */
  async searchChunks(query: string, vertical: string | undefined, limit: number, expand: boolean, text = true): Promise<ScoredChunk[]> {
    const { terms, expansions } = analyseQuery(query);
    if (terms.length === 0) return [];
    const related = expand ? expansions : [];
    const exclude = this.deps.slices.excluded();
    // Checked again once the search is done: an item hidden while it ranked (its old chunks about
    // to be deleted in slices) is left out whole, never in part.
    const chunks = withoutHidden(
      await this.deps.slices.tracked(
        this.deps.index.search(
          [...terms.map((text) => ({ text, weight: 1 })), ...related.map((e) => ({ text: e.term, weight: EXPANSION_WEIGHT }))],
          { vertical, limit, text, exclude },
        ),
      ),
      exclude,
    );
    if (related.length === 0) return chunks;

    const own = new Set(terms);
    const standsFor = new Map(related.map((e) => [e.term, e.for]));
    const order = new Map(terms.map((t, i) => [t, i]));
    return chunks.map((chunk) => {
      const matched = new Set<string>();
      for (const word of chunk.matchedTerms) {
        if (own.has(word)) matched.add(word);
        for (const term of standsFor.get(word) ?? []) matched.add(term);
      }
      return { ...chunk, matchedTerms: [...matched].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)) };
    });
  }

  /** The text of these chunks, by id (chunks that no longer exist are left out). */
  private async chunkTexts(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    return this.deps.index.chunkTexts(ids);
  }
}
