/**
 * Warming: reading the postings searches will need before they need them (CacheWarmer), and the
 * sampling of frequent terms it starts from.
 */
import * as format from './postings-format';
import { isStopWord } from '../retrieval/query-terms';
import { parseChunkBlock, parsePostings, type ChunkBlock, type TermPostings, type VerticalStats } from './postings-format';
import { impactsOf, topK, type ScoringScope } from './bm25-scoring';
import { collectionStats, SearchCache } from './search-cache';
import type { PostingsReader, ScoringOptions } from './postings-search';

const CHUNK_BLOCK_SIZE = format.CHUNK_BLOCK_SIZE;

/** Terms read per statement while warming. */
const WARM_BATCH = 16;
/** Most terms one warm-up reads. */
const WARM_TERMS = 256;
/**
 * A warm-up stops once the cache holds this share of its budget (searches keep the rest).
 * Measured on 100,000 chunks (3 runs each way, interleaved): 3/4 (~200 terms) against 1/2 (~110 terms) took
 * search p50 from 2.1-3.1 to 1.7-2.2 ms and p95 from 5.2-7.5 to 4.6-5.4 ms.
 */
const WARM_FILL = 0.75;
/** Chunks sampled to find the frequent terms, and the share of them a term must be in. */
const SAMPLE_CHUNKS = 400;
const FREQUENT_SHARE = 0.01;
/** The frequent terms are sampled again when the number of chunks has changed by this share. */
const RESAMPLE_CHANGE = 0.2;
/** Scorings run on the warmed terms to compile the scoring code (see CacheWarmer.rehearse). */
const REHEARSALS = 24;
/** Writes within this many ms of each other are followed by one warm-up. */
const WARM_DEBOUNCE_MS = 200;

/** Up to `size` distinct random integers in [lo, hi] (all of them when there are no more). */
export function sampleIds(lo: number, hi: number, size: number): number[] {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) return [];
  if (hi - lo + 1 <= size) return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  const ids = new Set<number>();
  while (ids.size < size) ids.add(lo + Math.floor(Math.random() * (hi - lo + 1)));
  return [...ids].sort((a, b) => a - b);
}

/** What one warm-up did. */
export interface WarmReport {
  /** Terms read (not already held). */
  terms: number;
  /** Bytes the cache holds afterwards. */
  bytes: number;
  ms: number;
}

/** The distinct words of a text a query could search for: lower case, no stop words, not single letters. */
export function contentWordsOf(text: string, isStopWord: (word: string) => boolean): string[] {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (word.length > 1 && !isStopWord(word)) words.add(word);
  return [...words];
}

/**
 * The terms in the most chunks of a sample (each chunk given as its terms), most frequent first:
 * those whose postings are the largest, so the slowest to read and decode on a search's first
 * use. Terms in fewer than FREQUENT_SHARE of the sampled chunks (and in fewer than 2) are left out.
 */
export function frequentTerms(sample: string[][], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const terms of sample) for (const term of new Set(terms)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const least = Math.max(2, Math.ceil(sample.length * FREQUENT_SHARE));
  return [...counts]
    .filter(([, n]) => n >= least)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([term]) => term);
}

/**
 * Keeps a search cache warm. A cold search pays for reading, decoding and scoring the postings of
 * each of its terms for the first time (on 100,000 chunks, about 1 ms per common word); the
 * common words are also the ones most searches contain. So, in the background:
 * - at startup, and whenever writes have emptied the cache, the postings (with their chunk
 *   records and the BM25 impacts of a search across all verticals) of the terms searches used
 *   last before the cache was emptied, then of the corpus' most frequent terms, are read into
 *   the cache, WARM_BATCH terms per statement, until WARM_TERMS terms or WARM_FILL of the
 *   cache's budget;
 * - between statements it yields to the event loop, so visitors' searches go first.
 * Warming never changes a result: what it reads is checked against the versions like any read.
 */
export class CacheWarmer {
  private running: Promise<WarmReport> | undefined;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private frequent: { chunks: number; terms: string[] } | undefined;
  /** Whether rehearse has run. */
  private rehearsed = false;
  /** The statistics the last batch was read under. */
  private lastStats: VerticalStats[] | undefined;
  /** Callers holding warm-ups back (hold), and whether one was asked for meanwhile. */
  private holds = 0;
  private heldBack = false;

  constructor(
    private readonly reader: PostingsReader,
    private readonly cache: SearchCache,
    private readonly options: ScoringOptions,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Warms the cache now, or once the warm-up under way has finished. */
  warm(): Promise<WarmReport> {
    if (this.stopped) return Promise.resolve({ terms: 0, bytes: this.cache.size(), ms: 0 });
    if (this.running) {
      // Writes may have landed since the running warm-up read its terms: one more after it.
      this.pending = true;
      return this.running;
    }
    const run = this.run().finally(() => {
      this.running = undefined;
      if (this.pending && !this.stopped) {
        this.pending = false;
        this.schedule();
      }
    });
    this.running = run;
    return run;
  }

  /**
   * No warm-up until the returned function is called (each caller's): while a large item is
   * written in slices, each slice would empty the cache again, and a warm-up per slice (reading
   * hundreds of terms, re-sampling chunks as their number grows) only took CPU from the chats.
   */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds === 0 && this.heldBack) {
        this.heldBack = false;
        this.schedule();
      }
    };
  }

  /** Warms soon (once writes pause), in the background; failures go to onError. */
  schedule(): void {
    if (this.stopped) return;
    if (this.holds > 0) {
      this.heldBack = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.warm().catch((error: unknown) => this.onError(error));
    }, WARM_DEBOUNCE_MS);
    this.timer.unref();
  }

  /** Stops warming (the database is closing) and waits for a warm-up under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<WarmReport> {
    const started = performance.now();
    const first = await this.reader.read([], []);
    this.cache.validate(first.stats);
    const dropped = this.cache.takeDropped();
    const chunks = first.stats.reduce((sum, s) => sum + s.chunks, 0);
    const terms = [...new Set([...dropped, ...(await this.frequentTerms(chunks))])].slice(0, WARM_TERMS);
    let read = 0;
    for (let i = 0; i < terms.length && !this.stopped; i += WARM_BATCH) {
      if (this.cache.size() >= this.cache.maxBytes * WARM_FILL) break;
      const batch = terms.slice(i, i + WARM_BATCH).filter((term) => !this.cache.has(term));
      if (batch.length === 0) continue;
      read += await this.readBatch(batch);
      // Visitors' searches waiting for the database go first.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!this.stopped && !this.rehearsed) this.rehearsed = await this.rehearse(terms);
    return { terms: read, bytes: this.cache.size(), ms: performance.now() - started };
  }

  /**
   * Scores a few queries made of the warmed terms (nothing is fetched or returned), so that the
   * scoring code is compiled for real postings before visitors' searches need it: on a fresh
   * process the first searches ran topK in V8's interpreter and baseline tiers, up to 20 ms for
   * three common words instead of 2 ms. Once per warmer: the compiled code stays.
   */
  private async rehearse(terms: string[]): Promise<boolean> {
    const stats = this.lastStats;
    if (!stats || !this.cache.current(stats)) return false;
    const basis = collectionStats(stats);
    if (basis.n === 0) return false;
    const postings = terms.map((term) => this.cache.peek(term)).filter((p): p is TermPostings => p !== undefined && p.df > 0);
    if (postings.length === 0) return false;
    const chunks = new Map<number, ChunkBlock>();
    for (const p of postings) {
      for (const base of p.base) {
        const block = Math.floor(base / CHUNK_BLOCK_SIZE);
        const info = this.cache.block(block);
        if (info) chunks.set(block, info);
      }
    }
    const scope = { n: basis.n, avgdl: Math.max(basis.avgdl, this.options.avgdlFloor), formula: this.options.formula, dfCode: -1, chunks };
    for (let i = 0; i < REHEARSALS; i++) {
      // 2 to 5 terms, spread over the list, weights 1 and 0.5 (a visitor's word and a related word).
      const count = 2 + (i % 4);
      const query = Array.from({ length: count }, (_, j) => ({ postings: postings[(i * 7 + j * 13) % postings.length], weight: j % 3 === 2 ? 0.5 : 1 }));
      topK(query, { ...scope, limit: i % 4 === 3 ? 200 : 10, code: -1 });
      // Visitors' requests go first.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return true;
  }

  /** The sampled frequent terms, sampled again when the corpus has grown or shrunk enough. */
  private async frequentTerms(chunks: number): Promise<string[]> {
    const known = this.frequent;
    if (known && Math.abs(chunks - known.chunks) <= known.chunks * RESAMPLE_CHANGE) return known.terms;
    const terms = chunks === 0 ? [] : frequentTerms(await this.sampleTerms(), WARM_TERMS);
    this.frequent = { chunks, terms };
    return terms;
  }

  /** The terms of the content words of sampled chunks, one list per chunk. */
  private async sampleTerms(): Promise<string[][]> {
    const words = (await this.reader.sampleChunks(SAMPLE_CHUNKS)).map((text) => contentWordsOf(text, isStopWord));
    const distinct = [...new Set(words.flat())];
    const stems = await this.reader.stems(distinct);
    const termsOf = new Map(distinct.map((word, i) => [word, stems[i] ?? []]));
    return words.map((list) => list.flatMap((word) => termsOf.get(word) ?? []));
  }

  /** Reads a batch of terms with their chunk records into the cache; returns the terms kept. */
  private async readBatch(batch: string[]): Promise<number> {
    const read = await this.reader.read(batch, []);
    this.cache.validate(read.stats);
    this.lastStats = read.stats;
    const parsed: TermPostings[] = [];
    for (const term of batch) {
      const postings = parsePostings(read.postings.get(term) ?? []);
      this.cache.addTerm(term, postings, read.stats);
      parsed.push(postings);
    }
    const wanted = new Set<number>();
    for (const p of parsed) for (const base of p.base) wanted.add(Math.floor(base / CHUNK_BLOCK_SIZE));
    const missing = [...wanted].filter((block) => !this.cache.block(block)).sort((a, b) => a - b);
    if (missing.length > 0) {
      const more = await this.reader.read([], missing);
      for (const [block, data] of more.chunks) this.cache.addBlock(block, parseChunkBlock(data), more.stats);
    }
    // The impacts a search across all verticals scores with (on SQLite, every search's).
    const basis = collectionStats(read.stats);
    if (basis.n === 0 || !this.cache.current(read.stats)) return 0;
    const chunks = new Map<number, ChunkBlock>();
    for (const block of wanted) {
      const info = this.cache.block(block);
      if (info) chunks.set(block, info);
    }
    if (chunks.size < wanted.size) return parsed.length;
    const scope: ScoringScope = { n: basis.n, avgdl: Math.max(basis.avgdl, this.options.avgdlFloor), formula: this.options.formula, dfCode: -1, chunks };
    for (const p of parsed) impactsOf(p, scope);
    return parsed.length;
  }
}
