/**
 * The window arithmetic of the analytics API. A window is [now - hours, now]. It is read in up to
 * three parts: the raw events of the partial hour at its start, the hourly rollups of the
 * complete hours that the rollup job has finalised, and the raw events from there on (the
 * current partial hour, and any hour not rolled up yet). The figures are therefore exact and
 * include the latest requests, while a month reads about 720 rollup hours and two raw hours.
 */
import type { AnalyticsWindow } from '../shared/contracts/analytics';

export const HOUR_MS = 3_600_000;

export function floorHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

export function ceilHour(ms: number): number {
  return Math.ceil(ms / HOUR_MS) * HOUR_MS;
}

export interface AnalyticsSpan {
  hours: AnalyticsWindow;
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms ("now"). */
  to: number;
}

/** A part of the window: raw usage events, or hourly rollups. `to` undefined means "no upper bound". */
export interface WindowSegment {
  source: 'raw' | 'rollup';
  from: number;
  to?: number;
}

export function spanOf(hours: AnalyticsWindow, now: number): AnalyticsSpan {
  return { hours, from: now - hours * HOUR_MS, to: now };
}

/**
 * Splits the window by source. `rolledUntil` is the rollup watermark: every hour that starts
 * before it is rolled up and final. The last segment has no upper bound, so an event stamped a
 * moment after `now` by a server whose clock runs slightly ahead is still counted.
 */
export function planSegments(span: AnalyticsSpan, rolledUntil: number | undefined, useRollups = true): WindowSegment[] {
  const firstFullHour = ceilHour(span.from);
  const rollupEnd = Math.min(rolledUntil ?? -Infinity, floorHour(span.to));
  if (!useRollups || rollupEnd <= firstFullHour) return [{ source: 'raw', from: span.from }];
  const segments: WindowSegment[] = [];
  if (span.from < firstFullHour) segments.push({ source: 'raw', from: span.from, to: firstFullHour });
  segments.push({ source: 'rollup', from: firstFullHour, to: rollupEnd });
  segments.push({ source: 'raw', from: rollupEnd });
  return segments;
}

/** Start of every clock hour the window touches, oldest first (the first and last may be partial). */
export function hourBuckets(span: AnalyticsSpan): number[] {
  const buckets: number[] = [];
  for (let hour = floorHour(span.from); hour <= span.to; hour += HOUR_MS) buckets.push(hour);
  return buckets;
}
