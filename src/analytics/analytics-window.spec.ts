import { HOUR_MS, hourBuckets, planSegments, spanOf } from './analytics-window';

const T = Date.UTC(2024, 10, 21, 13, 20); // 13:20

describe('analytics window', () => {
  it('reads the whole window raw while nothing is rolled up', () => {
    expect(planSegments(spanOf(24, T), undefined)).toEqual([{ source: 'raw', from: T - 24 * HOUR_MS }]);
  });

  it('uses rollups for the finalised complete hours and raw events for both partial ends', () => {
    const rolledUntil = Date.UTC(2024, 10, 21, 12);
    expect(planSegments(spanOf(24, T), rolledUntil)).toEqual([
      { source: 'raw', from: T - 24 * HOUR_MS, to: Date.UTC(2024, 10, 20, 14) },
      { source: 'rollup', from: Date.UTC(2024, 10, 20, 14), to: rolledUntil },
      { source: 'raw', from: rolledUntil },
    ]);
  });

  it('never reads rollups of the current hour, even when the watermark is ahead', () => {
    const segments = planSegments(spanOf(24, T), T + 5 * HOUR_MS);
    expect(segments[1]).toEqual({ source: 'rollup', from: Date.UTC(2024, 10, 20, 14), to: Date.UTC(2024, 10, 21, 13) });
  });

  it('reads the last hour raw (it holds no complete clock hour)', () => {
    expect(planSegments(spanOf(1, T), T)).toEqual([{ source: 'raw', from: T - HOUR_MS }]);
  });

  it('lists every clock hour the window touches', () => {
    const buckets = hourBuckets(spanOf(1, T));
    expect(buckets).toEqual([Date.UTC(2024, 10, 21, 12), Date.UTC(2024, 10, 21, 13)]);
    expect(hourBuckets(spanOf(720, T))).toHaveLength(721);
  });
});
