/**
 * BM25 over the knowledge search index, shared by both dialects so SQLite and Postgres rank the
 * same way.
 *
 * The index (migrations 1732190600000-knowledge-search) is an inverted index kept by database
 * triggers in the same transaction as every change to `knowledge_chunks`:
 *
 * - `knowledge_postings (term, block, data)`: for every term (the engine's stem: FTS5 porter on
 *   SQLite, Postgres 'english' lexemes) and every block of POSTING_BLOCK_SIZE consecutive chunk
 *   ids, the postings of that term in that block, POSTING_BYTES bytes each (format below).
 * - `knowledge_search_stats (vertical, code, chunks, tokens, version)`: per vertical, the chunk
 *   count and total document length (the BM25 collection statistics), a small code stored in each
 *   posting, and a version that changes with every change to the vertical's chunks.
 *
 * A search reads the statistics and the postings of its terms (one statement), scores every
 * posting here (no per-row work in SQL), keeps the best `limit` chunks in a heap and only then
 * fetches their text. Document frequencies are counted from the postings themselves, so they
 * are always exact. Postings fetched once are kept in a PostingsCache until a version changes.
 */

/** Term-frequency saturation. */
export const BM25_K1 = 1.2;
/** Document-length normalisation. */
export const BM25_B = 0.75;
/** One occurrence of a query term in the title counts as this many occurrences in the text. */
export const TITLE_WEIGHT = 4;

/**
 * One posting, 12 bytes. Every byte but the first holds 7 bits, and the first has its high bit
 * set, so a record can only start at a byte >= 0x80: the triggers find (and cut out) the posting
 * of a chunk with a plain byte search for its 5 id bytes.
 *
 *   0-4   chunk id, 35 bits, big-endian 7-bit groups, byte 0 = 0x80 | bits 28-34
 *   5     vertical code (knowledge_search_stats.code, 1..127)
 *   6     occurrences in the title, capped at 127
 *   7-8   occurrences in the text, capped at 16383
 *   9-11  document length (tokens of title + text), capped at 2^21 - 1
 *
 * The caps are far beyond what a chunk of at most ~220 words and a 200-character title reaches.
 */
export const POSTING_BYTES = 12;
/** Chunk ids per postings row: rows stay small (<= 3 KiB), so a write rewrites little. */
export const POSTING_BLOCK_BITS = 8;
export const POSTING_BLOCK_SIZE = 1 << POSTING_BLOCK_BITS;

/** Collection statistics of one vertical, as stored in knowledge_search_stats. */
export interface VerticalStats {
  vertical: string;
  code: number;
  chunks: number;
  /** Sum of the document lengths of its chunks. */
  tokens: number;
  version: string;
}

/** How a dialect turns document frequencies into IDF. */
export type IdfFormula =
  /** FTS5's bm25(): ln((N - df + 0.5) / (df + 0.5)), at least 1e-6. */
  | 'fts5'
  /** ln(1 + (N - df + 0.5) / (df + 0.5)), never negative (the Postgres scorer). */
  | 'bm25-plus-one';

export function idf(formula: IdfFormula, n: number, df: number): number {
  if (formula === 'fts5') {
    const value = Math.log((n - df + 0.5) / (df + 0.5));
    return value <= 0 ? 1e-6 : value;
  }
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The postings of one term, as fetched (all blocks concatenated in block order). */
export interface TermPostings {
  data: Buffer;
  /** Postings per vertical code (the term's document frequency in that vertical). */
  dfByCode: Map<number, number>;
  /** Postings in all verticals. */
  df: number;
}

export function termPostings(data: Buffer): TermPostings {
  const dfByCode = new Map<number, number>();
  const usable = data.length - (data.length % POSTING_BYTES);
  for (let o = 0; o < usable; o += POSTING_BYTES) {
    const code = data[o + 5];
    dfByCode.set(code, (dfByCode.get(code) ?? 0) + 1);
  }
  return { data: usable === data.length ? data : data.subarray(0, usable), dfByCode, df: usable / POSTING_BYTES };
}

/** A term as the scorer sees it: its postings and the weight of its BM25 contribution. */
export interface ScoringTerm {
  postings: TermPostings;
  /** Multiplies the term's IDF (1 for the visitor's words, less for related words). */
  weight: number;
}

export interface TopKOptions {
  limit: number;
  /** Score only chunks of this vertical code (undefined: all). */
  code?: number;
  /** Document frequencies counted in `code` only (Postgres) or over all verticals (SQLite). */
  dfInScope: boolean;
  /** Chunks and average document length the scores are computed against. */
  n: number;
  avgdl: number;
  formula: IdfFormula;
}

export interface TopKHit {
  chunkId: number;
  score: number;
  /** Indexes (into the terms given) of the terms this chunk contains, ascending. */
  terms: number[];
}

/** At most this many terms are tracked for TopKHit.terms (they all still score). */
const TRACKED_TERMS = 64;

/**
 * The `limit` best chunks for `terms` by BM25: sum over terms of
 *   weight x idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)),  tf = TITLE_WEIGHT x title + text.
 * Exact: every posting is scored. The postings of all terms are walked together block by block
 * (each term's data is in block order), summing into a block-sized accumulator, so memory does
 * not grow with chunk ids. Ties are broken by chunk id, ascending.
 */
export function topK(terms: ScoringTerm[], options: TopKOptions): TopKHit[] {
  const limit = Math.max(1, Math.floor(options.limit));
  const m = terms.length;
  if (m === 0) return [];
  const weightedIdf = new Float64Array(m);
  for (let t = 0; t < m; t++) {
    const p = terms[t].postings;
    const df = options.dfInScope && options.code !== undefined ? (p.dfByCode.get(options.code) ?? 0) : p.df;
    weightedIdf[t] = df === 0 ? 0 : terms[t].weight * idf(options.formula, options.n, df);
  }
  const k1 = BM25_K1;
  const b = BM25_B;
  const avgdl = options.avgdl > 0 ? options.avgdl : 1;
  const wantCode = options.code ?? -1;

  const acc = new Float64Array(POSTING_BLOCK_SIZE);
  const seen = new Uint8Array(POSTING_BLOCK_SIZE);
  const maskLo = new Uint32Array(POSTING_BLOCK_SIZE);
  const maskHi = new Uint32Array(POSTING_BLOCK_SIZE);
  const touched = new Int32Array(POSTING_BLOCK_SIZE);
  const cursor = new Int32Array(m);
  const heap = new TopKHeap(limit);

  for (;;) {
    // The lowest block any term still has postings in.
    let block = Infinity;
    for (let t = 0; t < m; t++) {
      const data = terms[t].postings.data;
      if (cursor[t] < data.length) {
        const bl = blockAt(data, cursor[t]);
        if (bl < block) block = bl;
      }
    }
    if (block === Infinity) break;

    let nTouched = 0;
    for (let t = 0; t < m; t++) {
      const data = terms[t].postings.data;
      const w = weightedIdf[t];
      let o = cursor[t];
      for (; o < data.length; o += POSTING_BYTES) {
        if (blockAt(data, o) !== block) break;
        if (wantCode >= 0 && data[o + 5] !== wantCode) continue;
        const off = data[o + 4] | ((data[o + 3] & 1) << 7);
        const tf = TITLE_WEIGHT * data[o + 6] + ((data[o + 7] << 7) | data[o + 8]);
        const dl = (data[o + 9] << 14) | (data[o + 10] << 7) | data[o + 11];
        if (seen[off] === 0) {
          seen[off] = 1;
          touched[nTouched++] = off;
        }
        acc[off] += w * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avgdl)));
        if (t < 32) maskLo[off] |= 1 << t;
        else if (t < TRACKED_TERMS) maskHi[off] |= 1 << (t - 32);
      }
      cursor[t] = o;
    }
    const base = block * POSTING_BLOCK_SIZE;
    for (let i = 0; i < nTouched; i++) {
      const off = touched[i];
      heap.offer(acc[off], base + off, maskLo[off], maskHi[off]);
      acc[off] = 0;
      seen[off] = 0;
      maskLo[off] = 0;
      maskHi[off] = 0;
    }
  }
  return heap.sorted().map((e) => ({ chunkId: e.id, score: e.score, terms: termsOf(e.lo, e.hi) }));
}

/** Block number of the posting at byte `o`: chunk id >> POSTING_BLOCK_BITS. */
function blockAt(data: Buffer, o: number): number {
  // id = (b0 & 0x7f) * 2^28 + (b1 << 21 | b2 << 14 | b3 << 7 | b4); block = id >> 8.
  return (data[o] & 0x7f) * 1048576 + ((data[o + 1] << 13) | (data[o + 2] << 6) | (data[o + 3] >> 1));
}

function termsOf(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let t = 0; t < 32; t++) if (lo & (1 << t)) out.push(t);
  for (let t = 0; t < 32; t++) if (hi & (1 << t)) out.push(t + 32);
  return out;
}

interface HeapEntry {
  score: number;
  id: number;
  lo: number;
  hi: number;
}

/** The `limit` best (score desc, id asc) entries offered, as a min-heap on "worse". */
class TopKHeap {
  private readonly items: HeapEntry[] = [];
  constructor(private readonly limit: number) {}

  /** a ranks below b */
  private static worse(a: HeapEntry, b: HeapEntry): boolean {
    return a.score < b.score || (a.score === b.score && a.id > b.id);
  }

  offer(score: number, id: number, lo: number, hi: number): void {
    const items = this.items;
    if (items.length < this.limit) {
      items.push({ score, id, lo, hi });
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopKHeap.worse(items[i], items[parent])) break;
        [items[i], items[parent]] = [items[parent], items[i]];
        i = parent;
      }
      return;
    }
    const root = items[0];
    if (score < root.score || (score === root.score && id > root.id)) return;
    items[0] = { score, id, lo, hi };
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < items.length && TopKHeap.worse(items[l], items[worst])) worst = l;
      if (r < items.length && TopKHeap.worse(items[r], items[worst])) worst = r;
      if (worst === i) break;
      [items[i], items[worst]] = [items[worst], items[i]];
      i = worst;
    }
  }

  sorted(): HeapEntry[] {
    return [...this.items].sort((a, b) => b.score - a.score || a.id - b.id);
  }
}

/**
 * Postings already fetched, per term, valid while the statistics' versions stay the same (any
 * change to any chunk changes its vertical's version, see the triggers), and bounded in bytes
 * (least recently used terms are dropped first).
 */
export class PostingsCache {
  private signature = '';
  private readonly entries = new Map<string, TermPostings>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Empties the cache unless `stats` carry the versions it was filled under. */
  validate(stats: VerticalStats[]): boolean {
    const signature = signatureOf(stats);
    if (signature === this.signature) return true;
    this.entries.clear();
    this.bytes = 0;
    this.signature = signature;
    return false;
  }

  get(term: string): TermPostings | undefined {
    const entry = this.entries.get(term);
    if (entry) {
      // Most recently used last.
      this.entries.delete(term);
      this.entries.set(term, entry);
    }
    return entry;
  }

  /** Stores postings fetched under `stats` (ignored if they are not the cache's versions). */
  set(term: string, postings: TermPostings, stats: VerticalStats[]): void {
    if (signatureOf(stats) !== this.signature || postings.data.length > this.maxBytes) return;
    const previous = this.entries.get(term);
    if (previous) {
      this.bytes -= previous.data.length;
      this.entries.delete(term);
    }
    this.entries.set(term, postings);
    this.bytes += postings.data.length;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.data.length;
    }
  }
}

function signatureOf(stats: VerticalStats[]): string {
  return stats
    .map((s) => `${s.code}:${s.version}:${s.chunks}:${s.tokens}`)
    .sort()
    .join(',');
}

/** N and average document length of a scope: one vertical's, or all of them. */
export function collectionStats(stats: VerticalStats[], vertical?: string): { n: number; avgdl: number; code?: number } {
  const scope = vertical === undefined ? stats : stats.filter((s) => s.vertical === vertical);
  const n = scope.reduce((sum, s) => sum + s.chunks, 0);
  const tokens = scope.reduce((sum, s) => sum + s.tokens, 0);
  return { n, avgdl: n > 0 ? tokens / n : 0, code: vertical === undefined ? undefined : stats.find((s) => s.vertical === vertical)?.code };
}

/** A chunk's row as the final fetch returns it. */
export interface ChunkRow {
  chunkId: number;
  itemId: string;
  ord: number;
  title: string;
  text: string;
}

/** The database side of a search: one dialect's SQL. */
export interface PostingsReader {
  /** The statistics of every vertical and the postings of `terms`, read in ONE statement. */
  read(terms: string[]): Promise<{ stats: VerticalStats[]; postings: Map<string, Buffer> }>;
  /** The chunks with these ids (any order; ids that no longer exist are left out). */
  chunks(ids: number[]): Promise<ChunkRow[]>;
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
  limit: number;
  formula: IdfFormula;
  /** Collection statistics and document frequencies of the vertical searched (else: of all). */
  scopedStatistics: boolean;
  /** The average document length is taken as at least this. */
  avgdlFloor: number;
}

/** Reads (or takes from the cache) the postings of the query's terms, scores them, fetches the winners. */
export async function searchPostings(
  reader: PostingsReader,
  cache: PostingsCache,
  query: StemmedQuery,
  options: PostingsSearchOptions,
): Promise<(ChunkRow & { score: number; matchedTerms: string[] })[]> {
  if (query.terms.length === 0) return [];
  const postings = new Map<string, TermPostings>();
  const missing: string[] = [];
  for (const { term } of query.terms) {
    const hit = cache.get(term);
    if (hit) postings.set(term, hit);
    else missing.push(term);
  }
  let read = await reader.read(missing);
  if (!cache.validate(read.stats) && postings.size > 0) {
    // The cache was filled under other versions: read everything again (one consistent statement).
    postings.clear();
    read = await reader.read(query.terms.map((t) => t.term));
    cache.validate(read.stats);
  }
  for (const [term, data] of read.postings) {
    const parsed = termPostings(data);
    cache.set(term, parsed, read.stats);
    postings.set(term, parsed);
  }

  const stats = read.stats;
  if (options.vertical !== undefined && !stats.some((s) => s.vertical === options.vertical)) return [];
  const all = collectionStats(stats);
  const scope = collectionStats(stats, options.vertical);
  const basis = options.scopedStatistics ? scope : all;
  if (basis.n === 0) return [];

  const scoring: ScoringTerm[] = [];
  const wordsOf: number[][] = [];
  for (const t of query.terms) {
    const p = postings.get(t.term);
    if (!p || p.df === 0) continue;
    scoring.push({ postings: p, weight: t.weight });
    wordsOf.push(t.words);
  }
  if (scoring.length === 0) return [];
  const hits = topK(scoring, {
    limit: options.limit,
    code: scope.code,
    dfInScope: options.scopedStatistics,
    n: basis.n,
    avgdl: Math.max(basis.avgdl, options.avgdlFloor),
    formula: options.formula,
  });
  if (hits.length === 0) return [];

  const rows = new Map((await reader.chunks(hits.map((h) => h.chunkId))).map((r) => [Number(r.chunkId), r]));
  const result: (ChunkRow & { score: number; matchedTerms: string[] })[] = [];
  for (const hit of hits) {
    const row = rows.get(hit.chunkId);
    if (!row) continue;
    const words = new Set<number>();
    for (const t of hit.terms) for (const w of wordsOf[t]) words.add(w);
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
  return result;
}
