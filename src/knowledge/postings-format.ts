/**
 * The knowledge search index's binary layout, shared by both dialects, and its parsers.
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
 * records of the blocks they touch (postings-search.ts). Scoring happens in process, not in SQL
 * (bm25-scoring.ts, topK); only the winners' text is fetched. What was read stays in a SearchCache until a
 * version changes.
 */

import * as bm25Parameters from '../retrieval/bm25-parameters';

// Declared, then exported: the loops here read local constants, not `exports.X` (what TypeScript
// emits for a use of an `export const` in its own module).
const TITLE_WEIGHT = bm25Parameters.TITLE_WEIGHT;

const POSTING_BYTES = 5;
const CHUNK_BYTES = 6;
/** Chunk ids per knowledge_search_chunks row (and the largest postings block). */
const CHUNK_BLOCK_BITS = 10;
const CHUNK_BLOCK_SIZE = 1 << CHUNK_BLOCK_BITS;
/** The header of a postings row: 0xC0 + first chunk id of the block. */
const HEADER_BYTES = 6;
export { CHUNK_BLOCK_BITS, CHUNK_BLOCK_SIZE, CHUNK_BYTES, HEADER_BYTES, POSTING_BYTES };
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
export interface ScopeImpacts {
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
export function postingsSize(p: TermPostings): number {
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
