import { describe, expect, it } from 'vitest';
import { formatPercent } from '../../../lib/format';
import { formatCount, formatDollars, formatMs, successLevel, verticalLabel } from './format';

describe('analytics formats', () => {
  it('shows dollars with 2 decimals and rounded milliseconds, or - when absent', () => {
    expect(formatDollars(12.3456)).toBe('$12.35');
    expect(formatDollars(0)).toBe('$0.00');
    expect(formatMs(245.6)).toBe('246ms');
    expect(formatMs(null)).toBe('-');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('colours the success rate: error rate below 2% green, below 5% yellow, otherwise red', () => {
    expect(successLevel(0)).toBe('good');
    expect(successLevel(0.0199)).toBe('good');
    expect(successLevel(0.02)).toBe('warning');
    expect(successLevel(0.0499)).toBe('warning');
    expect(successLevel(0.05)).toBe('bad');
    expect(formatPercent(1 - 0.0345, 1)).toBe('96.5%');
    expect(formatPercent(0.734)).toBe('73%');
  });

  it('shows a vertical by its catalog name, as the chat page does', () => {
    expect(verticalLabel('customer-service')).toBe('Customer Support');
    expect(verticalLabel('hr')).toBe('Employee Support');
    expect(verticalLabel('universal')).toBe('Universal');
    expect(verticalLabel('made-up')).toBe('made-up');
  });
});
