import { countMessageTokens, countTokens, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from './token-counter';

describe('token counter (an estimate of BPE tokenizers)', () => {
  it('counts short words as one token each, spaces included', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('How do I reset my password')).toBe(6);
  });

  it('charges long words about one token per 4 extra characters', () => {
    expect(countTokens('internationalization')).toBe(4); // 20 letters: 1 + ceil(12 / 4)
  });

  it('counts punctuation, digit groups, line breaks and CJK characters', () => {
    expect(countTokens('Hi, there!')).toBe(4);
    expect(countTokens('1234567')).toBe(3);
    expect(countTokens('a\n\n\nb')).toBe(3);
    expect(countTokens('你好世界')).toBe(4);
  });

  it('is roughly 4 characters per token on ordinary prose', () => {
    const prose =
      'Our support team answers every question within one business day. If your parcel has not arrived, ' +
      'please check the tracking link in your confirmation e-mail before contacting us.';
    const ratio = prose.length / countTokens(prose);
    expect(ratio).toBeGreaterThan(3.5);
    expect(ratio).toBeLessThan(6);
  });

  it('adds per-message and reply framing for chat requests', () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello' },
    ];
    expect(countMessageTokens(messages)).toBe(
      countTokens('Be brief.') + countTokens('Hello') + 2 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS,
    );
    expect(countMessageTokens([])).toBe(0);
  });
});
