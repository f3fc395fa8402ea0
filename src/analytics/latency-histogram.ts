/**
 * Latency histograms for percentiles over any window without sorting every event: each hour's
 * successful replies are counted into buckets (exact milliseconds below 100 ms, then buckets 2%
 * wide, up to an hour), and a window's percentile is read from the summed buckets. The value
 * reported for a bucket is its geometric middle in whole ms, so it is exact below 100 ms and
 * within 1.5% above.
 *
 * In memory a histogram is dense (one count per bucket, ~630 of them), so summing hundreds of
 * hours is a tight loop; stored, it is the JSON array of its non-empty buckets as flat pairs
 * `[bucket, count, bucket, count, ...]`, which parses much faster than an object.
 */

const LINEAR_LIMIT_MS = 100;
const GROWTH = 1.02;
const LOG_GROWTH = Math.log(GROWTH);
/** Longer latencies are counted in the last bucket. */
const MAX_MS = 3_600_000;

export function bucketOf(ms: number): number {
  const value = Math.min(MAX_MS, Math.max(0, Math.floor(ms)));
  if (value < LINEAR_LIMIT_MS) return value;
  // The small epsilon keeps exact bucket boundaries (100 * 1.02^k) from rounding down a bucket.
  return LINEAR_LIMIT_MS + Math.floor(Math.log(value / LINEAR_LIMIT_MS) / LOG_GROWTH + 1e-9);
}

export const BUCKET_COUNT = bucketOf(MAX_MS) + 1;

/** The value reported for a bucket: itself below 100 ms, else the geometric middle of its range. */
export function valueOfBucket(bucket: number): number {
  if (bucket < LINEAR_LIMIT_MS) return bucket;
  return Math.round(LINEAR_LIMIT_MS * GROWTH ** (bucket - LINEAR_LIMIT_MS + 0.5));
}

export type Histogram = Float64Array;

export function newHistogram(): Histogram {
  return new Float64Array(BUCKET_COUNT);
}

export function addToHistogram(histogram: Histogram, ms: number, count = 1): void {
  histogram[bucketOf(ms)] += count;
}

export function mergeInto(target: Histogram, source: Histogram): void {
  for (let i = 0; i < BUCKET_COUNT; i += 1) target[i] += source[i];
}

/** Stored form: JSON flat pairs of the non-empty buckets. */
export function serializeHistogram(histogram: Histogram): string {
  const pairs: number[] = [];
  for (let i = 0; i < BUCKET_COUNT; i += 1) if (histogram[i] > 0) pairs.push(i, histogram[i]);
  return JSON.stringify(pairs);
}

/** Adds a stored histogram into `into` (a new one when omitted) and returns it. */
export function addSerialized(json: string, into: Histogram = newHistogram()): Histogram {
  addPairs(into, parsePairs(json));
  return into;
}

/** Flat [bucket, count, ...] pairs, buckets ascending. */
export type HistogramPairs = readonly number[];

/**
 * Stored histograms recur on every query of a window (an hour's rollup changes only when the
 * hour is recomputed), so their parses are memoised by the stored text itself: the same text
 * always parses to the same pairs, so the memo can never be stale.
 */
const parsed = new Map<string, HistogramPairs>();
const PARSED_LIMIT = 20_000;

export function parsePairs(json: string): HistogramPairs {
  let pairs = parsed.get(json);
  if (!pairs) {
    pairs = Object.freeze(JSON.parse(json) as number[]);
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(json, pairs);
  }
  return pairs;
}

export function addPairs(into: Histogram, pairs: HistogramPairs): void {
  for (let i = 0; i + 1 < pairs.length; i += 2) into[pairs[i]] += pairs[i + 1];
}

/** Nearest-rank percentile of stored pairs (see `percentile`), without expanding them. */
export function percentileOfPairs(pairs: HistogramPairs, p: number): number | null {
  let total = 0;
  for (let i = 1; i < pairs.length; i += 2) total += pairs[i];
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    seen += pairs[i + 1];
    if (seen >= rank) return valueOfBucket(pairs[i]);
  }
  return valueOfBucket(pairs[pairs.length - 2]);
}

export function histogramCount(histogram: Histogram): number {
  let total = 0;
  for (let i = 0; i < BUCKET_COUNT; i += 1) total += histogram[i];
  return total;
}

/**
 * Nearest-rank percentile (`p` in 0-100): the smallest recorded value such that at least p% of
 * the values are at or below it. null for an empty histogram.
 */
export function percentile(histogram: Histogram, p: number): number | null {
  const total = histogramCount(histogram);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < BUCKET_COUNT; i += 1) {
    seen += histogram[i];
    if (seen >= rank) return valueOfBucket(i);
  }
  return valueOfBucket(BUCKET_COUNT - 1);
}
