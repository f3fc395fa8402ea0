import { describe, expect, it } from 'vitest';
import { formatDuration, formatUsd } from './format';

describe('formatDuration', () => {
  it('shows whole milliseconds under a second and tenths of a second above', () => {
    expect(formatDuration(849.6)).toBe('850 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(0)).toBe('0 ms');
  });

  it('shows nothing for a missing or negative time', () => {
    expect(formatDuration(Number.NaN)).toBe('');
    expect(formatDuration(-5)).toBe('');
  });
});

describe('formatUsd, the one money format', () => {
  it('zero and sums from a dollar up in cents; below a dollar up to 4 decimals', () => {
    expect([0, 0.0042, 0.5, 0.12345, 1, 9.8765, 1234.5].map(formatUsd)).toEqual(['$0.00', '$0.0042', '$0.50', '$0.1235', '$1.00', '$9.88', '$1,234.50']);
  });
});
