/**
 * The in-process parts of the search index: top-k selection against brute force (ties and
 * vertical filters included), and the warm-up's choice of terms. The database side is covered by
 * knowledge.service.spec.ts.
 */
import { topK } from './bm25-scoring';
import { frequentTerms, sampleIds } from './cache-warmer';
import { ChunkBlock, parseChunkBlock, parsePostings } from './postings-format';

/** A postings row: header (0xC0 + first id in 5 x 7 bits), then 5-byte postings. */
function postingsRow(first: number, postings: { offset: number; title: number; text: number }[]): Buffer {
  const header = [0xc0, Math.floor(first / 2 ** 28) & 127, (first >> 21) & 127, (first >> 14) & 127, (first >> 7) & 127, first & 127];
  const body = postings.flatMap((p) => [0x80 | (p.offset >> 7), p.offset & 127, p.title, p.text >> 7, p.text & 127]);
  return Buffer.from([...header, ...body]);
}

function chunkRow(records: { offset: number; code: number; length: number }[]): Buffer {
  return Buffer.from(records.flatMap((r) => [0x80 | (r.offset >> 7), r.offset & 127, r.code, (r.length >> 14) & 127, (r.length >> 7) & 127, r.length & 127]));
}

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('topK', () => {
  it('returns exactly the best chunks of a brute-force scoring, ties by id, with the terms each contains', () => {
    const random = rng(7);
    for (let round = 0; round < 30; round++) {
      const chunkCount = 3000;
      const lengths = Array.from({ length: chunkCount }, () => 1 + Math.floor(random() * 4) * 10);
      const codes = Array.from({ length: chunkCount }, () => 1 + Math.floor(random() * 3));
      const chunks = new Map<number, ChunkBlock>();
      for (let block = 0; block * 1024 < chunkCount; block++) {
        const records = [];
        for (let off = 0; off < 1024 && block * 1024 + off < chunkCount; off++) records.push({ offset: off, code: codes[block * 1024 + off], length: lengths[block * 1024 + off] });
        chunks.set(block, parseChunkBlock(chunkRow(records)));
      }
      // Few distinct tf values and lengths: many exact ties.
      const termCount = 2 + Math.floor(random() * 4);
      const tfs: Map<number, number>[] = [];
      const terms = Array.from({ length: termCount }, () => {
        const share = [0.002, 0.05, 0.4][Math.floor(random() * 3)];
        const tf = new Map<number, number>();
        const rows: Buffer[] = [];
        for (let first = 0; first < chunkCount; first += 128) {
          const postings = [];
          for (let off = 0; off < 128 && first + off < chunkCount; off++) {
            if (random() >= share) continue;
            const title = random() < 0.1 ? 1 : 0;
            const text = 1 + Math.floor(random() * 2);
            postings.push({ offset: off, title, text });
            tf.set(first + off, 4 * title + text);
          }
          if (postings.length > 0) rows.push(postingsRow(first, postings));
        }
        tfs.push(tf);
        // Rows in any order, as the database returns them.
        return parsePostings(rows.reverse());
      });
      const weights = terms.map((_, i) => (i % 2 === 0 ? 1 : 0.5));
      const n = chunkCount;
      const avgdl = lengths.reduce((a, b) => a + b, 0) / n;
      for (const [limit, code] of [[10, -1], [1, -1], [50, 2], [3000, -1]]) {
        const expected: { chunkId: number; score: number; terms: number[] }[] = [];
        for (let id = 0; id < chunkCount; id++) {
          if (code >= 0 && codes[id] !== code) continue;
          let score = 0;
          const has: number[] = [];
          tfs.forEach((tf, t) => {
            const f = tf.get(id);
            if (f === undefined) return;
            const df = tf.size;
            const idf = Math.max(Math.log((n - df + 0.5) / (df + 0.5)), 1e-6);
            score += weights[t] * (idf * ((f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * lengths[id]) / avgdl))));
            has.push(t);
          });
          if (has.length > 0) expected.push({ chunkId: id, score, terms: has });
        }
        expected.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
        const actual = topK(
          terms.map((postings, i) => ({ postings, weight: weights[i] })),
          { limit, code, dfCode: -1, n, avgdl, formula: 'fts5', chunks },
        );
        const want = expected.slice(0, limit);
        expect(actual.map((h) => h.chunkId)).toEqual(want.map((e) => e.chunkId));
        expect(actual.map((h) => h.terms)).toEqual(want.map((e) => e.terms));
        actual.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
      }
    }
  });
});

describe('warm-up helpers', () => {
  it('frequentTerms: terms in the most sampled chunks first, each chunk counted once, rare terms left out', () => {
    const sample = [
      ['refund', 'refund', 'order'],
      ['refund', 'ship'],
      ['order', 'refund'],
      ['ship', 'order'],
      ['zeppelin'],
    ];
    expect(frequentTerms(sample, 10)).toEqual(['order', 'refund', 'ship']);
    expect(frequentTerms(sample, 1)).toEqual(['order']);
    expect(frequentTerms([], 10)).toEqual([]);
    // At least 1% of the chunks: in 1,000 chunks, a term in 9 is left out.
    const big = Array.from({ length: 1000 }, (_, i) => (i < 9 ? ['rare', 'common'] : ['common']));
    expect(frequentTerms(big, 10)).toEqual(['common']);
  });

  it('sampleIds: distinct ids within the range, all of them when there are few', () => {
    expect(sampleIds(5, 9, 400)).toEqual([5, 6, 7, 8, 9]);
    const ids = sampleIds(1, 100_000, 400);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
    expect(ids.every((id) => Number.isInteger(id) && id >= 1 && id <= 100_000)).toBe(true);
    expect(sampleIds(NaN, 10, 5)).toEqual([]);
    expect(sampleIds(10, 1, 5)).toEqual([]);
  });
});
