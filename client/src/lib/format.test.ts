import { describe, expect, it } from 'vitest';
import { formatDuration } from './format';

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
