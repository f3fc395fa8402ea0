import { newUsageEventId } from './usage-event-id';

describe('usage event ids', () => {
  it('are version 7 UUIDs carrying the time, unique, and sorting by time', () => {
    const t = Date.UTC(2025, 0, 1);
    const a = newUsageEventId(t);
    const b = newUsageEventId(t + 1);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(t);
    expect(a < b).toBe(true);
    const many = new Set(Array.from({ length: 10_000 }, () => newUsageEventId(t)));
    expect(many.size).toBe(10_000);
  });
});
