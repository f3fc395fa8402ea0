import { gapTerms, type GapCandidate, termGapMatcher, termSimilarity } from './gap-terms';

describe('gap terms', () => {
  it('describes a question by its stemmed content words, without fillers or stop words', () => {
    expect(gapTerms('How can I get my refunds?')).toEqual(['refund']);
    expect(gapTerms('Where is the refund for my damaged order?')).toEqual(['damag', 'order', 'refund']);
    expect(gapTerms('hello?')).toEqual([]);
  });

  it('groups rewordings of one question and keeps different questions apart', () => {
    const a = gapTerms('How do I reset my password?');
    const b = gapTerms('Password reset is not working');
    const c = gapTerms('How do I change my delivery address?');
    expect(termSimilarity(a, b)).toBeGreaterThanOrEqual(0.5);
    expect(termSimilarity(a, c)).toBe(0);
    const candidates = [
      { id: 'address', terms: c, question: 'x', lastAskedAt: 2 },
      { id: 'password', terms: b, question: 'y', lastAskedAt: 1 },
    ];
    expect((termGapMatcher.match({ text: 'Resetting passwords?', terms: gapTerms('Resetting passwords?'), vertical: 'customer-service' }, candidates) as GapCandidate | undefined)?.id).toBe('password');
    expect(termGapMatcher.match({ text: 'Do you ship to Mars?', terms: gapTerms('Do you ship to Mars?'), vertical: 'customer-service' }, candidates)).toBeUndefined();
  });

  it('describes a question in another language by the English of its words', () => {
    const english = gapTerms('How do I reset my password?');
    const spanish = gapTerms('¿Cómo restablezco mi contraseña?');
    expect(termSimilarity(english, spanish)).toBeGreaterThan(0);
  });
});
