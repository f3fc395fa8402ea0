/**
 * BM25 scoring of chunks over parsed postings (postings-format.ts), the same for both dialects so
 * SQLite and Postgres rank alike: the IDF formulas, per-block length norms, per-term impacts and
 * the exact top-k (topK) with MaxScore-style pruning.
 */
import * as bm25Parameters from '../retrieval/bm25-parameters';
import * as format from './postings-format';
import type { ChunkBlock, ScopeImpacts, TermPostings } from './postings-format';

// Local constants: the loops here read them, not a module's exports.
const BM25_K1 = bm25Parameters.BM25_K1;
const BM25_B = bm25Parameters.BM25_B;
const CHUNK_BLOCK_SIZE = format.CHUNK_BLOCK_SIZE;

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

/** The block's length normalisation, k1 (1 - b + b dl / avgdl) per offset (kept for the next search). */
function normsOf(info: ChunkBlock, avgdl: number): Float64Array {
  if (info.norm?.avgdl === avgdl) return info.norm.k;
  const k = new Float64Array(CHUNK_BLOCK_SIZE);
  const length = info.length;
  for (let off = 0; off < CHUNK_BLOCK_SIZE; off++) k[off] = BM25_K1 * (1 - BM25_B + (BM25_B * length[off]) / avgdl);
  info.norm = { avgdl, k };
  return k;
}

/** What scores are computed against. */
export interface ScoringScope {
  /** Chunks and their average length. */
  n: number;
  avgdl: number;
  formula: IdfFormula;
  /** Count document frequencies in this vertical code only (-1: in all verticals). */
  dfCode: number;
  /**
   * The chunk records of the blocks postings are in (postings without one are left out). A Map,
   * not a callback: the scoring loops stay optimised from one search to the next (a new closure
   * per search made V8 throw their optimised code away, "wrong call target").
   */
  chunks: Map<number, ChunkBlock>;
}

/**
 * Each posting's contribution idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), computed
 * once per term and scope while the cache holds the term (N, avgdl and df cannot change then).
 */
export function impactsOf(p: TermPostings, scope: ScoringScope): ScopeImpacts {
  const key = `${scope.formula}|${scope.n}|${scope.avgdl}|${scope.dfCode}`;
  const known = p.scopes.get(key);
  if (known) return known;
  const restrict = scope.dfCode;
  let df = p.df;
  if (restrict >= 0) {
    df = 0;
    for (let i = 0; i < p.base.length; i++) {
      const info = scope.chunks.get(Math.floor(p.base[i] / CHUNK_BLOCK_SIZE));
      if (!info) continue;
      const first = p.base[i] % CHUNK_BLOCK_SIZE;
      for (let k = p.start[i]; k < p.end[i]; k++) if (info.code[first + p.offset[k]] === restrict) df++;
    }
  }
  const weight = df === 0 ? 0 : idf(scope.formula, scope.n, df);
  const impact = new Float64Array(p.offset.length);
  const maxImpact = new Float64Array(p.base.length);
  const k1plus1 = BM25_K1 + 1;
  const { base, start, end, offset, tf: tfs } = p;
  for (let i = 0; i < base.length; i++) {
    const info = scope.chunks.get(Math.floor(base[i] / CHUNK_BLOCK_SIZE));
    if (!info) continue;
    const first = base[i] % CHUNK_BLOCK_SIZE;
    const norm = normsOf(info, scope.avgdl);
    const codes = info.code;
    let max = 0;
    for (let k = start[i], last = end[i]; k < last; k++) {
      const at = first + offset[k];
      const code = codes[at];
      if (code === 0 || (restrict >= 0 && code !== restrict)) continue;
      const tf = tfs[k];
      const value = weight * ((tf * k1plus1) / (tf + norm[at]));
      impact[k] = value;
      if (value > max) max = value;
    }
    maxImpact[i] = max;
  }
  const result = { impact, maxImpact };
  p.scopes.set(key, result);
  return result;
}

/** A term as the scorer sees it: its postings and the weight of its BM25 contribution. */
export interface ScoringTerm {
  postings: TermPostings;
  /** Multiplies the term's contribution (1 for the visitor's words, less for related words). */
  weight: number;
}

export interface TopKOptions extends ScoringScope {
  limit: number;
  /** Only chunks of this vertical code (-1: all). */
  code: number;
  /**
   * Chunk ids never ranked (e.g. another jurisdiction's legal chunks); scored as if absent.
   * Consulted when ranking, after the postings were read (a live set may still grow meanwhile).
   */
  exclude?: ChunkIdSet;
}

export interface TopKHit {
  chunkId: number;
  score: number;
  /** Indexes (into the terms given) of the terms this chunk contains, ascending. */
  terms: number[];
}

/** Rounding allowance on upper bounds, so a bound can never come out below a score it covers. */
const BOUND_SLACK = 1 + 1e-9;

/**
 * The `limit` best chunks for `terms` by BM25: sum over terms of weight x idf x tf (k1 + 1) /
 * (tf + k1 (1 - b + b dl / avgdl)), tf = TITLE_WEIGHT x title + text hits.
 *
 * Exact, block-max style: no chunk of a block can score more than the sum over the block's terms
 * of weight x the term's highest contribution in the block. Blocks are scored in decreasing order
 * of that bound (popped from a heap, so a search that stops early never sorts them all), each
 * completely (every posting of every term, summed into a block-sized accumulator); once `limit`
 * chunks score above the next block's bound, no later block can change the result and the rest
 * are skipped. Ties: lower chunk id first. Which terms each winner contains is looked up at the
 * end, for the winners only (not tracked per posting).
 *
 * Everything per search lives in typed arrays: the scoring loop allocates nothing, so searches
 * leave little garbage behind (a comparator sort of the blocks alone made ~95 KB per search).
 */
/** What topK needs of a set of chunk ids (a Set, or a view over several). */
export interface ChunkIdSet {
  readonly size: number;
  has(id: number): boolean;
}

export function topK(terms: ScoringTerm[], options: TopKOptions): TopKHit[] {
  const limit = Math.max(1, Math.floor(options.limit));
  const m = terms.length;
  if (m === 0) return [];
  const impacts = terms.map((t) => impactsOf(t.postings, options));
  const weights = Float64Array.from(terms, (t) => (t.weight > 0 ? t.weight : 0));
  const wantCode = options.code;
  const exclude = options.exclude !== undefined && options.exclude.size > 0 ? options.exclude : undefined;

  // Blocks in ascending order of first chunk id (a merge of the terms' block lists), each with
  // its (term, segment) entries and its bound.
  let segmentCount = 0;
  for (const t of terms) segmentCount += t.postings.base.length;
  const blockBase = new Float64Array(segmentCount);
  const blockBound = new Float64Array(segmentCount);
  const blockFrom = new Int32Array(segmentCount + 1);
  const entryTerm = new Int32Array(segmentCount);
  const entrySegment = new Int32Array(segmentCount);
  const cursor = new Int32Array(m);
  let blocks = 0;
  let entries = 0;
  for (;;) {
    let base = Infinity;
    for (let t = 0; t < m; t++) {
      const bases = terms[t].postings.base;
      if (cursor[t] < bases.length && bases[cursor[t]] < base) base = bases[cursor[t]];
    }
    if (base === Infinity) break;
    blockFrom[blocks] = entries;
    let bound = 0;
    for (let t = 0; t < m; t++) {
      const bases = terms[t].postings.base;
      const i = cursor[t];
      if (i < bases.length && bases[i] === base) {
        if (weights[t] > 0) {
          entryTerm[entries] = t;
          entrySegment[entries] = i;
          entries++;
          bound += weights[t] * impacts[t].maxImpact[i];
        }
        cursor[t] = i + 1;
      }
    }
    blockBase[blocks] = base;
    blockBound[blocks] = bound * BOUND_SLACK;
    blocks++;
  }
  blockFrom[blocks] = entries;

  const queue = new BlockQueue(blockBound, blockBase, blocks);
  const { acc, touched } = scratch;
  const heap = new TopKHeap(limit);
  while (queue.size > 0) {
    const b = queue.pop();
    const bound = blockBound[b];
    if (bound === 0 || (heap.full() && bound < heap.lowestScore())) break;
    const base = blockBase[b];
    const info = options.chunks.get(Math.floor(base / CHUNK_BLOCK_SIZE));
    if (!info) continue;
    const first = base % CHUNK_BLOCK_SIZE;
    const codes = info.code;
    let nTouched = 0;
    for (let e = blockFrom[b]; e < blockFrom[b + 1]; e++) {
      const t = entryTerm[e];
      const i = entrySegment[e];
      const p = terms[t].postings;
      const offsets = p.offset;
      const impact = impacts[t].impact;
      const w = weights[t];
      const end = p.end[i];
      // An impact of 0: no chunk record, or outside the scope the impacts were computed for.
      // Every other contribution is > 0, so an accumulator at 0 is a chunk not seen yet.
      if (wantCode < 0) {
        for (let k = p.start[i]; k < end; k++) {
          const value = impact[k];
          if (value === 0) continue;
          const off = offsets[k];
          if (acc[off] === 0) touched[nTouched++] = off;
          acc[off] += w * value;
        }
      } else {
        for (let k = p.start[i]; k < end; k++) {
          const value = impact[k];
          if (value === 0) continue;
          const off = offsets[k];
          if (codes[first + off] !== wantCode) continue;
          if (acc[off] === 0) touched[nTouched++] = off;
          acc[off] += w * value;
        }
      }
    }
    // Only chunks that can get in are offered (the heap settles ties by id). An excluded chunk
    // is dropped here: the bound of its block may count it, which only makes the bound looser.
    let floor = heap.full() ? heap.lowestScore() : -Infinity;
    for (let j = 0; j < nTouched; j++) {
      const off = touched[j];
      const score = acc[off];
      acc[off] = 0;
      if (exclude !== undefined && exclude.has(base + off)) continue;
      if (score >= floor) {
        heap.offer(score, base + off);
        if (heap.full()) floor = heap.lowestScore();
      }
    }
  }
  return heap.sorted().map(({ id, score }) => ({ chunkId: id, score, terms: termsContaining(terms, impacts, id) }));
}

/** Per-block work arrays of topK, left zeroed after every block (topK never runs twice at once). */
const scratch = {
  acc: new Float64Array(CHUNK_BLOCK_SIZE),
  touched: new Int32Array(CHUNK_BLOCK_SIZE),
};

/** Indexes of the terms that contribute to chunk `id` (a posting with a non-zero impact). */
function termsContaining(terms: ScoringTerm[], impacts: ScopeImpacts[], id: number): number[] {
  const out: number[] = [];
  for (let t = 0; t < terms.length; t++) {
    const p = terms[t].postings;
    // The last block starting at or before id.
    let lo = 0;
    let hi = p.base.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (p.base[mid] <= id) lo = mid;
      else hi = mid - 1;
    }
    if (hi < 0 || p.base[lo] > id) continue;
    const off = id - p.base[lo];
    if (off >= CHUNK_BLOCK_SIZE) continue;
    const impact = impacts[t].impact;
    for (let k = p.start[lo]; k < p.end[lo]; k++) {
      if (p.offset[k] === off) {
        if (impact[k] !== 0) out.push(t);
        break;
      }
    }
  }
  return out;
}

/** Block indexes by decreasing bound (ties: lower first chunk id), as a binary max-heap. */
class BlockQueue {
  private readonly items: Int32Array;
  size: number;

  constructor(
    private readonly bound: Float64Array,
    private readonly base: Float64Array,
    count: number,
  ) {
    this.items = new Int32Array(count);
    for (let i = 0; i < count; i++) this.items[i] = i;
    this.size = count;
    for (let i = (count >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private before(a: number, b: number): boolean {
    return this.bound[a] > this.bound[b] || (this.bound[a] === this.bound[b] && this.base[a] < this.base[b]);
  }

  pop(): number {
    const items = this.items;
    const top = items[0];
    this.size--;
    if (this.size > 0) {
      items[0] = items[this.size];
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(from: number): void {
    const items = this.items;
    const n = this.size;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      let best = r < n && this.before(items[r], items[l]) ? r : l;
      if (!this.before(items[best], items[i])) return;
      const swap = items[i];
      items[i] = items[best];
      items[best] = swap;
      i = best;
    }
  }
}

/** The `limit` best (score desc, id asc) chunks offered; a min-heap on "ranks lower", in typed arrays. */
class TopKHeap {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private count = 0;

  constructor(private readonly limit: number) {
    this.scores = new Float64Array(limit);
    this.ids = new Float64Array(limit);
  }

  full(): boolean {
    return this.count >= this.limit;
  }

  /** The score a chunk must beat to get in (once full). */
  lowestScore(): number {
    return this.count > 0 ? this.scores[0] : -Infinity;
  }

  /** Entry i ranks lower than (score, id). */
  private lower(i: number, score: number, id: number): boolean {
    return this.scores[i] < score || (this.scores[i] === score && this.ids[i] > id);
  }

  offer(score: number, id: number): void {
    const scores = this.scores;
    const ids = this.ids;
    if (this.count < this.limit) {
      // Sift up: parents that rank higher than the newcomer move down.
      let i = this.count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!(scores[parent] > score || (scores[parent] === score && ids[parent] < id))) break;
        scores[i] = scores[parent];
        ids[i] = ids[parent];
        i = parent;
      }
      scores[i] = score;
      ids[i] = id;
      return;
    }
    if (score < scores[0] || (score === scores[0] && id > ids[0])) return;
    // Replace the root and sift down.
    const n = this.count;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const lowest = r < n && this.lower(r, scores[l], ids[l]) ? r : l;
      if (!this.lower(lowest, score, id)) break;
      scores[i] = scores[lowest];
      ids[i] = ids[lowest];
      i = lowest;
    }
    scores[i] = score;
    ids[i] = id;
  }

  sorted(): { score: number; id: number }[] {
    const out: { score: number; id: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ score: this.scores[i], id: this.ids[i] });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }
}
