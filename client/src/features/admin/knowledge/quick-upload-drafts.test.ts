import { describe, expect, it } from 'vitest';
import { draftsFromJson, prettyTitle } from './quick-upload-drafts';

const defaults = { vertical: 'customer-service' as const, category: 'Uploaded', tags: ['uploaded', 'document'] };

describe('quick upload drafts', () => {
  it.each([
    ['return-policy_v2.txt', 'Return policy v2'],
    ['Employee Handbook.PDF', 'Employee Handbook'],
    ['  spaced__out--name.json', 'Spaced out name'],
    ['.hidden', '.hidden'],
  ])('titles %s as %s', (name, title) => expect(prettyTitle(name)).toBe(title));

  it('an unknown vertical in the file falls back to the default; nested values become readable text', () => {
    const result = draftsFromJson('{"name": "Plans", "vertical": "marketing", "prices": {"basic": 10, "pro": 25}, "regions": ["EU", "US"]}', 'plans.json', defaults);
    expect(result).toEqual({ drafts: [{ title: 'Plans', content: 'Prices: Basic: 10; Pro: 25\nRegions: EU, US', category: 'Uploaded', vertical: 'customer-service', tags: ['uploaded', 'document'], attachments: [] }] });
  });

  it('an empty array holds no items', () => {
    expect(draftsFromJson('[]', 'x.json', defaults)).toEqual({ problem: 'The JSON file holds no items.' });
  });
});
