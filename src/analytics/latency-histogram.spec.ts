import { addSerialized, addToHistogram, bucketOf, BUCKET_COUNT, mergeInto, newHistogram, percentile, serializeHistogram, valueOfBucket } from './latency-histogram';

function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

describe('latency histogram', () => {
  it('keeps milliseconds below 100 exact', () => {
    for (let ms = 0; ms < 100; ms += 1) expect(valueOfBucket(bucketOf(ms))).toBe(ms);
  });

  it('reports any value from 100 ms to an hour within 1.5%', () => {
    for (let ms = 100; ms < 3_600_000; ms = Math.ceil(ms * 1.003)) {
      const reported = valueOfBucket(bucketOf(ms));
      expect(Math.abs(reported - ms) / ms).toBeLessThanOrEqual(0.015);
    }
    expect(bucketOf(10 * 3_600_000)).toBe(BUCKET_COUNT - 1);
  });

  it('gives nearest-rank percentiles equal to sorting when values are below 100 ms', () => {
    const values = Array.from({ length: 537 }, (_, i) => (i * 37) % 97);
    const histogram = newHistogram();
    for (const v of values) addToHistogram(histogram, v);
    for (const p of [1, 50, 90, 95, 99, 100]) expect(percentile(histogram, p)).toBe(exactPercentile(values, p));
  });

  it('merges hours and survives storage as JSON', () => {
    const a = newHistogram();
    const b = newHistogram();
    [5, 5, 250, 1200].forEach((v) => addToHistogram(a, v));
    [5, 80, 250].forEach((v) => addToHistogram(b, v));
    expect(serializeHistogram(b)).toBe(`[5,1,80,1,${bucketOf(250)},1]`);
    const merged = addSerialized(serializeHistogram(a));
    mergeInto(merged, addSerialized(serializeHistogram(b)));
    expect(percentile(merged, 50)).toBe(80);
    expect(Math.abs(percentile(merged, 100)! - 1200) / 1200).toBeLessThan(0.015);
    expect(percentile(newHistogram(), 50)).toBeNull();
  });
});
