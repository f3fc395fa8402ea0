/**
 * One search over the postings: read the statistics and the postings of the query's terms (from
 * the SearchCache or the database, through a dialect's PostingsReader), score with topK, then
 * fetch only the winners' rows.
 */
import * as format from './postings-format';
import { parseChunkBlock, parsePostings, type ChunkBlock, type TermPostings, type VerticalStats } from './postings-format';
import { idf, topK, type ChunkIdSet, type IdfFormula, type ScoringTerm, type TopKHit, type TopKOptions } from './bm25-scoring';
import { collectionStats, SearchCache, type ChunkRow } from './search-cache';

const CHUNK_BLOCK_SIZE = format.CHUNK_BLOCK_SIZE;

/** What PostingsReader.chunks returns. */
export interface ChunkFetch {
  rows: ChunkRow[];
  stats: VerticalStats[];
}

/**
 * A row of a dialect's chunk fetch (PostingsReader.chunks): a vertical's statistics (kind 0: the
 * first six columns) or a chunk (kind 1: the last five).
 */
export interface ChunkFetchRow {
  kind: number | string;
  vertical: string | null;
  code: number | string | null;
  chunks: number | string | null;
  tokens: number | string | null;
  version: number | string | null;
  chunkId: number | string | null;
  itemId: string | null;
  ord: number | string | null;
  title: string | null;
  text: string | null;
}

/** Collects a chunk fetch's rows. */
export function chunkFetchOf(found: ChunkFetchRow[]): ChunkFetch {
  const fetch: ChunkFetch = { rows: [], stats: [] };
  for (const row of found) {
    if (Number(row.kind) === 0) {
      fetch.stats.push({ vertical: String(row.vertical), code: Number(row.code), chunks: Number(row.chunks), tokens: Number(row.tokens), version: String(row.version) });
    } else {
      fetch.rows.push({ chunkId: Number(row.chunkId), itemId: String(row.itemId), ord: Number(row.ord), title: String(row.title), text: String(row.text) });
    }
  }
  return fetch;
}

/** What one read statement returns. */
export interface IndexRead {
  stats: VerticalStats[];
  /** A term's knowledge_postings rows, whole, in one or more buffers (see parsePostings). */
  postings: Map<string, Buffer[]>;
  /** knowledge_search_chunks rows per block. */
  chunks: Map<number, Buffer>;
}

/**
 * A row of a dialect's read statement: statistics of a vertical (kind 0), a term's postings rows
 * (1: name = the term), a knowledge_search_chunks row (2: n = the block).
 */
export interface IndexReadRow {
  kind: number | string;
  name: string | null;
  n: number | string | null;
  chunks: number | string | null;
  tokens: number | string | null;
  version: number | string | null;
  data: unknown;
}

/** Collects a read statement's rows; `bytes` turns the dialect's `data` value into bytes. */
export function indexReadOf(rows: IndexReadRow[], bytes: (data: unknown) => Buffer): IndexRead {
  const stats: VerticalStats[] = [];
  const postings = new Map<string, Buffer[]>();
  const chunks = new Map<number, Buffer>();
  for (const row of rows) {
    const kind = Number(row.kind);
    if (kind === 0) {
      stats.push({ vertical: String(row.name), code: Number(row.n), chunks: Number(row.chunks), tokens: Number(row.tokens), version: String(row.version) });
    } else if (row.data !== null && row.data !== undefined) {
      const data = bytes(row.data);
      if (kind === 2) chunks.set(Number(row.n), data);
      else {
        const list = postings.get(String(row.name));
        if (list) list.push(data);
        else postings.set(String(row.name), [data]);
      }
    }
  }
  return { stats, postings, chunks };
}

/** The database side of a search: one dialect's SQL. */
export interface PostingsReader {
  /**
   * In ONE statement: the statistics of every vertical, the rows of each of `terms` concatenated
   * (any order), and the knowledge_search_chunks rows of `blocks`.
   */
  read(terms: string[], blocks: number[]): Promise<IndexRead>;
  /**
   * The chunks with these ids (any order; ids that no longer exist are left out; `text` '' unless
   * `withText`) and the statistics of every vertical, read by the statement that read the last
   * of the rows (all ids in one statement up to several hundred).
   */
  chunks(ids: number[], withText: boolean): Promise<ChunkFetch>;
  /** Title and text of a random sample of at most `size` chunks (see CacheWarmer). */
  sampleChunks(size: number): Promise<string[]>;
  /** The index terms of each word (a dialect may remember them for its searches). */
  stems(words: string[]): Promise<string[][]>;
}

/** A query reduced to the index's terms. */
export interface StemmedQuery {
  /** The query's words (WeightedTerm.text), for ScoredChunk.matchedTerms. */
  words: string[];
  /** Distinct index terms with their total weight and the words (indexes into `words`) they stand for. */
  terms: { term: string; weight: number; words: number[] }[];
}

export interface PostingsSearchOptions {
  vertical?: string;
  /** Chunk ids left out of the ranking (TopKOptions.exclude). */
  exclude?: ChunkIdSet;
  limit: number;
  /** Fetch the winners' text (else ChunkRow.text is ''). */
  withText: boolean;
  formula: IdfFormula;
  /** Collection statistics and document frequencies of the vertical searched (else: of all). */
  scopedStatistics: boolean;
  /** The average document length is taken as at least this. */
  avgdlFloor: number;
  /**
   * True when the cache is known to hold the index as it is now (PostingsSearchIndex.fresh): a
   * warm search is then answered from memory, without the statement that checks the versions.
   */
  fresh?: () => boolean;
}

/** How a dialect scores: everything in PostingsSearchOptions but what one search asks. */
export type ScoringOptions = Omit<PostingsSearchOptions, 'vertical' | 'exclude' | 'limit' | 'withText' | 'fresh'>;

/** Reads attempted before a search gives up waiting for a quiet moment between writes. */
const READ_ATTEMPTS = 3;

type SearchHit = ChunkRow & { score: number; matchedTerms: string[] };

/** What searchPostings returns. */
export interface SearchOutcome {
  hits: SearchHit[];
  /**
   * Per query word (StemmedQuery.words): the IDF ln(1 + (N - df + 0.5) / (df + 0.5)) of its index
   * term over all verticals, the highest when it has several (df 0 when the corpus does not know
   * the word); 0 when it has no index term (a stop word of the engine).
   */
  wordIdf: number[];
}

/**
 * Ranks `query`. A warm search (every term and block cached) ranks from the cache at once and
 * makes one statement: the winners' rows together with the statistics, which must still carry
 * the cache's versions (else it starts over as a cold search). A cold search reads what is not
 * cached (postings of the query's terms, then the chunk records of the blocks they touch; the
 * second read also checks that the versions did not move in between), ranks (topK), and fetches
 * the winners' rows.
 */
export async function searchPostings(
  reader: PostingsReader,
  cache: SearchCache,
  query: StemmedQuery,
  options: PostingsSearchOptions,
): Promise<SearchOutcome> {
  if (query.terms.length === 0) return { hits: [], wordIdf: query.words.map(() => 0) };
  const warm = cachedInputs(cache, query);
  if (warm) {
    const ranked = rank(warm, query, options);
    if (options.fresh?.()) {
      const rows = cache.rows(ranked.hits.map((h) => h.chunkId), options.withText);
      if (rows) return assemble(ranked, rows, query);
    }
    const fetched = await reader.chunks(ranked.hits.map((h) => h.chunkId), options.withText);
    if (cache.current(fetched.stats)) return assemble(ranked, fetched.rows, query);
    // Written since the cache was filled: empty it and search as if cold.
    cache.validate(fetched.stats);
  }

  let stats: VerticalStats[] = [];
  let postings = new Map<string, TermPostings>();
  let chunks = new Map<number, ChunkBlock>();
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
    postings = new Map();
    chunks = new Map();
    const missing: string[] = [];
    for (const { term } of query.terms) {
      const hit = cache.term(term);
      if (hit) postings.set(term, hit);
      else missing.push(term);
    }
    let asked = missing;
    let read = await reader.read(asked, []);
    if (!cache.validate(read.stats) && postings.size > 0) {
      // Read under other versions: everything again, in one consistent statement.
      postings.clear();
      asked = query.terms.map((t) => t.term);
      read = await reader.read(asked, []);
      cache.validate(read.stats);
    }
    stats = read.stats;
    for (const term of asked) {
      // A term no chunk contains is kept too (no postings), so that it is not asked for again.
      const parsed = parsePostings(read.postings.get(term) ?? []);
      cache.addTerm(term, parsed, stats);
      postings.set(term, parsed);
    }

    const missingBlocks: number[] = [];
    for (const block of blocksOf(postings.values())) {
      const hit = cache.block(block);
      if (hit) chunks.set(block, hit);
      else missingBlocks.push(block);
    }
    if (missingBlocks.length === 0) break;
    const more = await reader.read([], missingBlocks.sort((a, b) => a - b));
    for (const [block, data] of more.chunks) {
      const parsed = parseChunkBlock(data);
      cache.addBlock(block, parsed, more.stats);
      chunks.set(block, parsed);
    }
    // Consistent if nothing changed between the two reads; otherwise read again.
    if (cache.current(more.stats) || attempt === READ_ATTEMPTS) break;
  }

  const ranked = rank({ stats, postings, chunks }, query, options);
  if (ranked.hits.length === 0) return { hits: [], wordIdf: ranked.wordIdf };
  return assemble(ranked, (await reader.chunks(ranked.hits.map((h) => h.chunkId), options.withText)).rows, query);
}

/** What ranking needs: statistics, the query's postings and the chunk records of their blocks. */
interface RankInputs {
  stats: VerticalStats[];
  postings: Map<string, TermPostings>;
  chunks: Map<number, ChunkBlock>;
}

/** The blocks (CHUNK_BLOCK_SIZE ids) holding postings of `postings`. */
function blocksOf(postings: Iterable<TermPostings>): Set<number> {
  const blocks = new Set<number>();
  for (const p of postings) for (const base of p.base) blocks.add(Math.floor(base / CHUNK_BLOCK_SIZE));
  return blocks;
}

/** Everything a search of `query` reads, when the cache holds it all (and its statistics). */
function cachedInputs(cache: SearchCache, query: StemmedQuery): RankInputs | undefined {
  const stats = cache.statistics();
  if (!stats) return undefined;
  const postings = new Map<string, TermPostings>();
  for (const { term } of query.terms) {
    const hit = cache.term(term);
    if (!hit) return undefined;
    postings.set(term, hit);
  }
  const chunks = new Map<number, ChunkBlock>();
  for (const block of blocksOf(postings.values())) {
    const hit = cache.block(block);
    if (!hit) return undefined;
    chunks.set(block, hit);
  }
  return { stats, postings, chunks };
}

/** What rank() found: the top chunks and, per query word, what the scorer knows of it. */
interface Ranked {
  hits: TopKHit[];
  /** Per scoring term (TopKHit.terms), the query words (indexes) it stands for. */
  wordsOf: number[][];
  /** Per query word: its IDF (the highest of its terms'; see SearchOutcome.wordIdf). */
  wordIdf: number[];
}

/** The top `options.limit` chunks (topK), with the query words each matched and their IDF. */
function rank(inputs: RankInputs, query: StemmedQuery, options: PostingsSearchOptions): Ranked {
  const { stats, postings, chunks } = inputs;
  const wordIdf = query.words.map(() => 0);
  const none = { hits: [], wordsOf: [], wordIdf };
  if (options.vertical !== undefined && !stats.some((s) => s.vertical === options.vertical)) return none;
  const scope = collectionStats(stats, options.vertical);
  const basis = options.scopedStatistics ? scope : collectionStats(stats);
  if (basis.n === 0) return none;

  const scoring: ScoringTerm[] = [];
  const wordsOf: number[][] = [];
  // The IDF reported is ln(1 + (N - df + 0.5) / (df + 0.5)) over all verticals, whatever the
  // dialect's scoring formula and scope, so both dialects weigh the question's words alike: never
  // 0, even for a word in most chunks of a tiny corpus. A word no chunk contains is as rare as a
  // word can be (df 0): more often a topic the knowledge lacks than an incidental word (weighed
  // as df 1 instead, fewer unanswerable questions of the held-out eval corpora were "not found").
  const all = collectionStats(stats);
  const unseen = idf('bm25-plus-one', all.n, 0);
  for (const t of query.terms) {
    const p = postings.get(t.term);
    if (!p || p.df === 0) {
      for (const w of t.words) wordIdf[w] = Math.max(wordIdf[w], unseen);
      continue;
    }
    scoring.push({ postings: p, weight: t.weight });
    wordsOf.push(t.words);
  }
  if (scoring.length === 0) return none;
  const topKOptions: TopKOptions = {
    limit: options.limit,
    code: scope.code ?? -1,
    exclude: options.exclude,
    dfCode: options.scopedStatistics ? (scope.code ?? -1) : -1,
    n: basis.n,
    avgdl: Math.max(basis.avgdl, options.avgdlFloor),
    formula: options.formula,
    chunks,
  };
  const hits = topK(scoring, topKOptions);
  scoring.forEach((term, i) => {
    const value = idf('bm25-plus-one', all.n, term.postings.df);
    for (const w of wordsOf[i]) wordIdf[w] = Math.max(wordIdf[w], value);
  });
  return { hits, wordsOf, wordIdf };
}

/** The hits whose rows were fetched, in rank order, with their rows and matched words. */
function assemble(ranked: Ranked, fetched: ChunkRow[], query: StemmedQuery): SearchOutcome {
  const rows = new Map(fetched.map((r) => [Number(r.chunkId), r]));
  const result: SearchHit[] = [];
  for (const hit of ranked.hits) {
    const row = rows.get(hit.chunkId);
    if (!row) continue;
    const words = new Set<number>();
    for (const t of hit.terms) for (const w of ranked.wordsOf[t]) words.add(w);
    result.push({
      chunkId: hit.chunkId,
      itemId: row.itemId,
      ord: Number(row.ord),
      title: row.title,
      text: row.text,
      score: hit.score,
      matchedTerms: [...words].sort((a, b) => a - b).map((w) => query.words[w]),
    });
  }
  return { hits: result, wordIdf: ranked.wordIdf };
}
