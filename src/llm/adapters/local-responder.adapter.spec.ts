import type { LlmChunk, LlmRequest } from '../llm.types';
import { composeLocalAnswer, LocalResponderAdapter } from './local-responder.adapter';

const refunds = {
  itemId: 'k1',
  title: 'Returns and refunds',
  score: 1,
  text: 'You can return most items within 30 days. Refunds go back to the original payment method within 5 business days. Gift cards cannot be refunded. Our office dog is called Biscuit.',
};

function request(query: string, passages = [refunds], language = 'English'): LlmRequest {
  return { model: 'knowledge-responder', messages: [{ role: 'user', content: query }], grounding: { query, passages, language, vertical: 'customer-service' } };
}

async function collect(iterable: AsyncIterable<LlmChunk>): Promise<LlmChunk[]> {
  const out: LlmChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

describe('offline knowledge responder', () => {
  it('answers with the sentences that match the question, under the cited title', () => {
    const answer = composeLocalAnswer(request('How long do refunds take?'));
    expect(answer).toContain('**Returns and refunds**');
    expect(answer).toContain('Refunds go back to the original payment method within 5 business days.');
    expect(answer).not.toContain('Biscuit');
  });

  it('says plainly when nothing matched', () => {
    expect(composeLocalAnswer(request('Anything?', []))).toMatch(/couldn't find anything in our knowledge base/);
  });

  it('leads in the visitor language where it has one', () => {
    expect(composeLocalAnswer(request('refunds?', [refunds], 'German'))).toMatch(/^Das habe ich/);
  });

  it('streams several deltas that join into the answer, then one usage report', async () => {
    const chunks = await collect(new LocalResponderAdapter(0).stream(request('How long do refunds take?'), new AbortController().signal));
    const deltas = chunks.filter((c) => c.type === 'delta');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => (d as { text: string }).text).join('')).toBe(composeLocalAnswer(request('How long do refunds take?')));
    const usage = chunks.filter((c) => c.type === 'usage');
    expect(usage).toHaveLength(1);
    expect(chunks[chunks.length - 1].type).toBe('usage');
  });

  it('stops with a cancelled error when aborted mid-stream', async () => {
    const controller = new AbortController();
    const stream = new LocalResponderAdapter(5).stream(request('How long do refunds take?'), controller.signal);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of stream) {
          if (c.type === 'delta') seen.push(c.text);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    expect(seen).toHaveLength(1);
  });
});
