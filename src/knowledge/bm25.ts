/**
 * BM25 over the knowledge search index, shared by both dialects so SQLite and Postgres rank the
 * same way.
 *
 * The index (migrations 1732190600000-knowledge-search) is an inverted index that database
 * triggers keep in the same transaction as every change to `knowledge_chunks`:
 *
 * - `knowledge_postings (term, block, data)`: for every term (the engine's stem: FTS5 porter on
 *   SQLite, Postgres 'english' lexemes) and every block of consecutive chunk ids (128 on SQLite,
 *   so a row never spills to an overflow page; 1024 on Postgres: fewer, larger rows), a 6-byte
 *   header (0xC0, then the block's first chunk id in 5 x 7 bits) and the term's postings in that
 *   block, POSTING_BYTES each. Rows carry their header so that a search can read all the rows of a
 *   term as one concatenated blob, in any order.
 * - `knowledge_search_chunks (block, data)`: per block of 1024 chunk ids, each chunk's vertical
 *   code and document length, CHUNK_BYTES each (the BM25 "norms").
 * - `knowledge_search_stats (vertical, code, chunks, tokens, version)`: per vertical, the chunk
 *   count and total document length (the collection statistics), the code stored for its chunks,
 *   and a version that changes with every change to its chunks.
 *
 * Every byte of a posting or chunk record has 7 bits of data except the first, in 0x80-0x87: a
 * trigger finds the record of a chunk id in a row with a plain byte search for its 2 offset bytes
 * and cuts it out. Counts are capped (127 title, 16383 text occurrences, 2^21 - 1 tokens), far
 * beyond what a chunk of at most ~220 words and a 200-character title reach.
 *
 *   posting (5 bytes):  0x80 | offset >> 7, offset & 127, title hits, text hits >> 7, text hits & 127
 *   chunk (6 bytes):    0x80 | offset >> 7, offset & 127, vertical code, length (3 x 7 bits)
 *   (offset = chunk id - first id of the row's block, < 1024)
 *
 * A search reads, in one statement, the statistics and the postings of its terms; then the chunk
 * records of the blocks they touch (see searchPostings). Scoring happens here, not in SQL (see
 * topK); only the winners' text is fetched. What was read stays in a SearchCache until a
 * version changes.
 */

import * as bm25Parameters from '../retrieval/bm25-parameters';
import { isStopWord } from '../retrieval/query-terms';

// Declared, then exported: the loops here read local constants, not `exports.X` (what TypeScript
// emits for a use of an `export const` in its own module).
const BM25_K1 = bm25Parameters.BM25_K1;
const BM25_B = bm25Parameters.BM25_B;
const TITLE_WEIGHT = bm25Parameters.TITLE_WEIGHT;

const POSTING_BYTES = 5;
const CHUNK_BYTES = 6;
/** Chunk ids per knowledge_search_chunks row (and the largest postings block). */
const CHUNK_BLOCK_BITS = 10;
const CHUNK_BLOCK_SIZE = 1 << CHUNK_BLOCK_BITS;
/** The header of a postings row: 0xC0 + first chunk id of the block. */
const HEADER_BYTES = 6;
export { BM25_B, BM25_K1, CHUNK_BLOCK_BITS, CHUNK_BLOCK_SIZE, CHUNK_BYTES, HEADER_BYTES, POSTING_BYTES, TITLE_WEIGHT };
const HEADER_MARK = 0xc0;

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

/** 35-bit number in 5 x 7 bits at data[o..o+4]. */
function read35(data: Buffer, o: number): number {
  return (data[o] & 0x7f) * 268435456 + ((data[o + 1] << 21) | (data[o + 2] << 14) | (data[o + 3] << 7) | data[o + 4]);
}

/** The postings of one term, decoded: blocks in ascending order of their first chunk id. */
export interface TermPostings {
  /** Per block: first chunk id, and the range [start, end) of its postings. */
  base: Float64Array;
  start: Int32Array;
  end: Int32Array;
  /** Per posting: offset of the chunk in its block, and tf = TITLE_WEIGHT x title + text hits. */
  offset: Uint16Array;
  tf: Uint16Array;
  /** Postings (chunks containing the term) in all verticals. */
  df: number;
  /** Contributions per scoring scope, computed on first need (see impactsOf). */
  scopes: Map<string, ScopeImpacts>;
}

/** A term's BM25 contribution to each chunk containing it, in one scoring scope. */
interface ScopeImpacts {
  /** idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)) per posting; 0 outside the scope. */
  impact: Float64Array;
  /** Highest impact per block. */
  maxImpact: Float64Array;
}

/**
 * Decodes a term's rows as read (each row: header, then postings), given as one or more buffers
 * of whole rows, in whatever order they came.
 */
export function parsePostings(input: Buffer | Buffer[]): TermPostings {
  const parts = Array.isArray(input) ? input : [input];
  // One pass: a row is a header and whole postings, so there are at most bytes / 5 postings.
  let bytes = 0;
  for (const data of parts) bytes += data.length;
  const offsetAll = new Uint16Array(Math.floor(bytes / POSTING_BYTES));
  const tfAll = new Uint16Array(offsetAll.length);
  const bases: number[] = [];
  const starts: number[] = [];
  let block = -1;
  let k = 0;
  let sorted = true;
  for (const data of parts) {
    const length = data.length;
    for (let o = 0; o + 1 < length; ) {
      if (data[o] === HEADER_MARK) {
        block++;
        const first = read35(data, o + 1);
        if (block > 0 && first <= bases[block - 1]) sorted = false;
        bases.push(first);
        starts.push(k);
        o += HEADER_BYTES;
      } else if (block >= 0) {
        offsetAll[k] = ((data[o] & 0x07) << 7) | data[o + 1];
        tfAll[k] = TITLE_WEIGHT * data[o + 2] + ((data[o + 3] << 7) | data[o + 4]);
        k++;
        o += POSTING_BYTES;
      } else {
        o += POSTING_BYTES;
      }
    }
  }
  const blocks = bases.length;
  const offset = offsetAll.subarray(0, k);
  const tf = tfAll.subarray(0, k);
  let base = Float64Array.from(bases);
  let start = Int32Array.from(starts);
  let end = new Int32Array(blocks);
  for (let i = 0; i + 1 < blocks; i++) end[i] = start[i + 1];
  if (blocks > 0) end[blocks - 1] = k;
  if (!sorted) {
    const order = Array.from({ length: blocks }, (_, i) => i).sort((a, b) => base[a] - base[b]);
    base = Float64Array.from(order, (i) => base[i]);
    start = Int32Array.from(order, (i) => start[i]);
    end = Int32Array.from(order, (i) => end[i]);
  }
  return { base, start, end, offset, tf, df: k, scopes: new Map() };
}

/** Bytes a cached TermPostings takes (decoded postings and one scope of impacts). */
function sizeOf(p: TermPostings): number {
  // offset and tf are views of buffers sized for the bytes read (see parsePostings); 64 for the
  // objects, so that terms without postings count too.
  return 64 + p.offset.buffer.byteLength + p.tf.buffer.byteLength + p.offset.length * 8 + p.base.length * 24;
}

/** The chunk records of one knowledge_search_chunks row, by offset (code 0: no such chunk). */
export interface ChunkBlock {
  code: Uint8Array;
  length: Uint32Array;
  /** k1 (1 - b + b dl / avgdl) per offset, for the avgdl last scored against. */
  norm?: { avgdl: number; k: Float64Array };
}

export function parseChunkBlock(data: Buffer): ChunkBlock {
  const code = new Uint8Array(CHUNK_BLOCK_SIZE);
  const length = new Uint32Array(CHUNK_BLOCK_SIZE);
  for (let o = 0; o + CHUNK_BYTES <= data.length; o += CHUNK_BYTES) {
    const off = ((data[o] & 0x07) << 7) | data[o + 1];
    code[off] = data[o + 2];
    length[off] = (data[o + 3] << 14) | (data[o + 4] << 7) | data[o + 5];
  }
  // norm is set later (normsOf); present from the start so every ChunkBlock has one shape.
  return { code, length, norm: undefined };
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
function impactsOf(p: TermPostings, scope: ScoringScope): ScopeImpacts {
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

/**
 * What searches have read (postings per term, chunk records per block), valid while the
 * statistics' versions stay the same (any change to any chunk changes its vertical's version,
 * see the triggers), and bounded in bytes (least recently used first out).
 */
export class SearchCache {
  private signature = '';
  /** The statistics the cache was filled under (see validate). */
  private stats: VerticalStats[] | undefined;
  private readonly terms = new Map<string, TermPostings>();
  private readonly blocks = new Map<number, ChunkBlock>();
  private bytes = 0;
  /**
   * Chunk texts quoted in prompts, by chunk id (ids are never reused and a chunk's text never
   * changes in place; a deleted chunk changes its vertical's version, which empties this too).
   */
  private readonly texts = new Map<number, string>();
  private textBytes = 0;
  /** Chunk records (item, position, title) of chunks searches returned, by chunk id (see rows). */
  private readonly records = new Map<number, { itemId: string; ord: number; title: string }>();
  private recordBytes = 0;
  /** The terms held when the cache was last emptied, most recently used first (see takeDropped). */
  private dropped: string[] = [];

  constructor(
    readonly maxBytes: number,
    readonly maxTextBytes = 8 * 1024 * 1024,
  ) {}

  /** Empties the cache unless `stats` carry the versions it was filled under. */
  validate(stats: VerticalStats[]): boolean {
    const signature = signatureOf(stats);
    if (signature === this.signature) return true;
    this.stats = stats;
    if (this.terms.size > 0) this.dropped = [...this.terms.keys()].reverse();
    this.terms.clear();
    this.blocks.clear();
    this.texts.clear();
    this.records.clear();
    this.bytes = 0;
    this.textBytes = 0;
    this.recordBytes = 0;
    this.signature = signature;
    return false;
  }

  /** The versions the cache holds data for (pass it back to addText). */
  version(): string {
    return this.signature;
  }

  /** A chunk's text, if held (counts as a use). */
  text(chunkId: number): string | undefined {
    const text = this.texts.get(chunkId);
    if (text !== undefined) {
      this.texts.delete(chunkId);
      this.texts.set(chunkId, text);
    }
    return text;
  }

  /** Keeps a chunk's text read while the cache held `version` (ignored if it moved on since). */
  addText(chunkId: number, text: string, version: string): void {
    if (version !== this.signature || this.signature === '' || this.texts.has(chunkId)) return;
    const size = 2 * text.length + 32;
    if (size > this.maxTextBytes / 4) return;
    this.texts.set(chunkId, text);
    this.textBytes += size;
    for (const [key, value] of this.texts) {
      if (this.textBytes <= this.maxTextBytes) break;
      this.texts.delete(key);
      this.textBytes -= 2 * value.length + 32;
    }
  }

  /**
   * The records of these chunks (item, position, title; the text too when `withText`), if all are
   * held. Like texts, a chunk's record never changes under its id, and the cache empties when any
   * chunk is deleted.
   */
  rows(chunkIds: number[], withText: boolean): ChunkRow[] | undefined {
    const rows: ChunkRow[] = [];
    for (const chunkId of chunkIds) {
      const record = this.records.get(chunkId);
      if (!record) return undefined;
      const text = withText ? this.texts.get(chunkId) : '';
      if (text === undefined) return undefined;
      rows.push({ chunkId, itemId: record.itemId, ord: record.ord, title: record.title, text });
    }
    return rows;
  }

  /** Keeps the records (and texts, when fetched) of chunks read under `stats` (ignored if those are not the cache's versions). */
  addRows(rows: ChunkRow[], stats: VerticalStats[], withText: boolean): void {
    if (!this.current(stats) || this.signature === '') return;
    for (const row of rows) {
      const chunkId = Number(row.chunkId);
      if (!this.records.has(chunkId)) {
        const record = { itemId: row.itemId, ord: Number(row.ord), title: row.title };
        this.records.set(chunkId, record);
        this.recordBytes += recordSize(record);
      }
      if (withText) this.addText(chunkId, row.text, this.signature);
    }
    for (const [key, value] of this.records) {
      if (this.recordBytes <= this.maxTextBytes / 4) break;
      this.records.delete(key);
      this.recordBytes -= recordSize(value);
    }
  }

  /** The terms the last emptying dropped, most recently used first (once; then none until the next). */
  takeDropped(): string[] {
    const dropped = this.dropped;
    this.dropped = [];
    return dropped;
  }

  /** Whether an emptying dropped terms that takeDropped has not taken yet. */
  hasDropped(): boolean {
    return this.dropped.length > 0;
  }

  /** The statistics the cache holds data for (undefined until a first validate). */
  statistics(): VerticalStats[] | undefined {
    return this.stats;
  }

  /** The terms held. */
  termNames(): string[] {
    return [...this.terms.keys()];
  }

  /** A held term's postings, without counting as a use. */
  peek(term: string): TermPostings | undefined {
    return this.terms.get(term);
  }

  /** Whether the term is held (without counting as a use). */
  has(term: string): boolean {
    return this.terms.has(term);
  }

  /** Bytes held (postings and their impacts). */
  size(): number {
    return this.bytes;
  }

  /** True when `stats` are those the cache holds data for. */
  current(stats: VerticalStats[]): boolean {
    return signatureOf(stats) === this.signature;
  }

  term(term: string): TermPostings | undefined {
    const entry = this.terms.get(term);
    if (entry) {
      this.terms.delete(term);
      this.terms.set(term, entry);
    }
    return entry;
  }

  block(block: number): ChunkBlock | undefined {
    return this.blocks.get(block);
  }

  /** Keeps postings read under `stats` (ignored if those are not the cache's versions). */
  addTerm(term: string, postings: TermPostings, stats: VerticalStats[]): void {
    const size = sizeOf(postings);
    if (!this.current(stats) || size > this.maxBytes / 2) return;
    const previous = this.terms.get(term);
    if (previous) {
      this.bytes -= sizeOf(previous);
      this.terms.delete(term);
    }
    this.terms.set(term, postings);
    this.bytes += size;
    for (const [key, value] of this.terms) {
      if (this.bytes <= this.maxBytes) break;
      this.terms.delete(key);
      this.bytes -= sizeOf(value);
    }
  }

  /** Keeps a block's chunk records read under `stats` (5 to 13 bytes per chunk id; not evicted). */
  addBlock(block: number, chunks: ChunkBlock, stats: VerticalStats[]): void {
    if (this.current(stats)) this.blocks.set(block, chunks);
  }
}

/** About what a chunk record takes in memory (its strings, two bytes a character, and the object). */
function recordSize(record: { itemId: string; title: string }): number {
  return 2 * (record.itemId.length + record.title.length) + 64;
}

/** The versions `stats` carry, as one string (what SearchCache.version returns once it holds data for them). */
export function signatureOf(stats: VerticalStats[]): string {
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

// ------------------------------------------------------------------------------------------------
// Warming: reading the postings searches will need before they need them.

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
