import { DEFAULT_RELEVANCE, matchOf, relevanceFor, replyConfidence } from './relevance';

describe('replyConfidence (the reply\'s confidence)', () => {
  const first = { match: matchOf({ coverage: 1, titleCoverage: 0.5 }), relevance: 2 };

  it('is the first source\'s match when nothing else comes near, and never more', () => {
    expect(replyConfidence(first)).toBeLessThanOrEqual(first.match);
    expect(replyConfidence(first)).toBeCloseTo(first.match, 2);
    expect(replyConfidence(first, { relevance: 0.2 })).toBeCloseTo(first.match, 2);
  });

  it('is lower the closer the runner-up: two similar entries are often told apart wrongly', () => {
    const far = replyConfidence(first, { relevance: 1 });
    const near = replyConfidence(first, { relevance: 1.8 });
    const tie = replyConfidence(first, { relevance: 2 });
    expect(far).toBeGreaterThan(near);
    expect(near).toBeGreaterThan(tie);
    expect(tie).toBeLessThan(0.75 * first.match);
  });

  it('a weak match stays weak however far ahead it is (a small knowledge base where nothing else matches)', () => {
    const weak = { match: matchOf({ coverage: 0.3, titleCoverage: 0 }), relevance: 0.5 };
    expect(replyConfidence(weak)).toBeLessThan(0.5);
  });
});

describe('relevanceFor', () => {
  it('Legal cites only stronger matches than the other verticals; explicit parameters win', () => {
    expect(relevanceFor('customer-service').floor).toBe(DEFAULT_RELEVANCE.floor);
    expect(relevanceFor(undefined).floor).toBe(DEFAULT_RELEVANCE.floor);
    expect(relevanceFor('legal').floor).toBeGreaterThan(DEFAULT_RELEVANCE.floor);
    expect(relevanceFor('legal', { floor: 0.3 }).floor).toBe(0.3);
  });
});
