import { detectLanguage } from '../../retrieval/language';
import { LANGUAGES } from '../../shared/catalog/languages';
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

  it("puts each quoted item's title in a paragraph of its own, so it does not run into the quoted text", () => {
    const answer = composeLocalAnswer(request('How long do refunds take?'));
    expect(answer).toMatch(/\n\n\*\*Returns and refunds\*\*\n\nRefunds go back/);
  });

  it('quotes every cited item, each under its title, with at least one sentence', () => {
    const items = ['Returns and refunds', 'Refund window for hardware orders', 'Cancelling an order'].map((title, i) => ({
      itemId: `k${i}`,
      title,
      score: 1 - i * 0.2,
      text: `About refunds, part ${i + 1}. Refunds are processed within ${i + 3} days. Another sentence about refunds and returns. And one more on refunds.`,
    }));
    const answer = composeLocalAnswer(request('How do refunds work?', items));
    for (const item of items) expect(answer).toContain(`**${item.title}**`);
  });

  it('says plainly when nothing matched, and asks to rephrase', () => {
    const answer = composeLocalAnswer(request('Anything?', []));
    expect(answer).toMatch(/couldn't find anything in our knowledge base/);
    expect(answer).toContain('Could you rephrase the question or add a detail?');
    expect(answer).not.toMatch(/looks like/);
  });

  it('names the vertical whose knowledge matches when nothing here did', () => {
    const withSuggestion = (language: string): LlmRequest => ({
      ...request('How many vacation days do I get?', [], language),
      grounding: { query: 'How many vacation days do I get?', passages: [], language, vertical: 'customer-service', suggestedVertical: { id: 'hr', name: 'Employee Support' } },
    });
    expect(composeLocalAnswer(withSuggestion('English'))).toContain('This looks like an Employee Support question: you can ask it in the Employee Support tab.');
    expect(composeLocalAnswer(withSuggestion('Spanish'))).toContain('Parece una pregunta para Employee Support');
    expect(composeLocalAnswer(withSuggestion('Japanese'))).toContain('「Employee Support」タブ');
  });

  it('says "not found" and its next steps in each of the 11 offered languages', () => {
    const replies = LANGUAGES.map((l) => composeLocalAnswer(request('?', [], l.name)));
    expect(new Set(replies).size).toBe(LANGUAGES.length);
    expect(composeLocalAnswer(request('Comment réinitialiser mon mot de passe ?', [], 'French'))).toBe(
      'Je n’ai rien trouvé dans notre base de connaissances qui réponde à cette question. Pourriez-vous reformuler la question ou ajouter une précision ?\n\n' +
        'En cas d’urgence, contactez un membre de notre équipe.',
    );
    // Written in the language itself: no English sentence in the others' replies.
    for (const [i, reply] of replies.entries()) {
      if (LANGUAGES[i].code === 'en') continue;
      expect(reply).not.toMatch(/couldn't|knowledge base|rephrase/i);
      expect(detectLanguage(reply)).toBe(LANGUAGES[i].code);
    }
  });

  it('leads in the visitor language and says in which language the quoted passages are written', () => {
    const german = composeLocalAnswer(request('refunds?', [refunds], 'German'));
    expect(german).toMatch(/^Das habe ich/);
    expect(german).toContain('(Die folgenden Auszüge werden im Original zitiert, auf Englisch.)');
    expect(german).toContain('Refunds go back to the original payment method');
    expect(composeLocalAnswer(request('refunds?', [refunds], 'Arabic'))).toContain('باللغة الإنجليزية');
    // Same language as the reply: no such line.
    expect(composeLocalAnswer(request('How long do refunds take?'))).not.toMatch(/quoted as written/);
    const spanishPassage = { ...refunds, text: 'Puede devolver la mayoría de los artículos en un plazo de 30 días y el reembolso se hace en la tarjeta.' };
    expect(composeLocalAnswer(request('reembolso', [spanishPassage], 'Spanish'))).not.toMatch(/se citan tal como/);
    expect(composeLocalAnswer(request('refund', [spanishPassage], 'English'))).toContain('(The passages below are quoted as written, in Spanish.)');
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

describe('offline knowledge responder: Markdown knowledge', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GIFT_WRAPPING } = require('../../../test/fixtures/gift-wrapping') as typeof import('../../../test/fixtures/gift-wrapping');
  const item = { itemId: 'g1', title: 'Gift wrapping', score: 1, text: GIFT_WRAPPING.content };
  const attachment = { itemId: 'g1', title: 'Gift wrapping', score: 0.5, text: `_warranty.txt_\n\n${GIFT_WRAPPING.attachment.content}` };

  it('quotes the price list and the table whole, under their heading, with the title on its own line', () => {
    const answer = composeLocalAnswer(request(GIFT_WRAPPING.question, [item, attachment]));
    expect(answer).toContain('**Gift wrapping**\n\n');
    expect(answer).toContain('**Prices**\n\n1. Classic paper wrapping: $4\n2. Premium box with ribbon: $9\n3. Eco fabric wrap (reusable): $7');
    expect(answer).toContain('| Style | Price | Delivery |\n| --- | --- | --- |\n| Classic | $4 | same day |\n| Premium | $9 | next day |\n| Eco | $7 | same day |');
    // No fence is left open, and the attachment's first line is not run into the item's text.
    expect((answer.match(/```/g) ?? []).length % 2).toBe(0);
    expect(answer).not.toMatch(/\S Warranty claims/);
  });

  it("quotes a code block whole, and an attachment's passage apart from the item's, under the attachment's name", () => {
    const code = composeLocalAnswer(request('gift message coupon code', [item]));
    expect(code).toContain('```\nGIFTNOTE-2024\n```');
    const warranty = composeLocalAnswer(request('How long is the warranty?', [item, attachment]));
    expect(warranty).toContain('_warranty.txt_\n\nWarranty claims Every product has a two year warranty.');
  });

  it('a plain-text item is quoted as before: matching sentences joined, the title on its own line', () => {
    expect(composeLocalAnswer(request('How long do refunds take?'))).toContain('**Returns and refunds**\n\nRefunds go back to the original payment method within 5 business days.');
  });
});
