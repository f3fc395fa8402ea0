import { detectLanguage } from '../../retrieval/language';
import { LANGUAGES } from '../../shared/catalog/languages';
import type { LlmRequest } from '../llm.types';
import { composeLocalAnswer } from './local-responder.adapter';
import { SMALL_TALK_REPLIES, smallTalkOf } from './small-talk';

const offline = (query: string, language = 'English'): LlmRequest => ({
  model: 'knowledge-responder',
  messages: [{ role: 'user', content: query }],
  grounding: { query, passages: [], language, vertical: 'customer-service' },
});

describe('small talk (offline responder)', () => {
  it.each([
    ['hello', ['hi', 'Hello!', 'hey there', 'Good morning', 'hola', 'Buenos días', 'Bonjour !', 'salut', 'Hallo', 'Guten Tag', 'ciao', 'Buongiorno', 'Olá', 'bom dia', 'مرحبا', 'नमस्ते', '안녕하세요', '你好', 'こんにちは']],
    ['thanks', ['thanks', 'Thank you!', 'thanks a lot', 'thank you so much team', 'gracias', 'muchas gracias', 'merci beaucoup', 'Danke schön', 'vielen Dank', 'grazie mille', 'muito obrigado', 'obrigada', 'شكرا', 'धन्यवाद', '감사합니다', '谢谢', 'ありがとうございます', 'hi, thanks!']],
    ['bye', ['bye', 'Goodbye!', 'see you later', 'adiós', 'hasta luego', 'au revoir', 'tschüss', 'auf Wiedersehen', 'arrivederci', 'tchau', 'مع السلامة', 'अलविदा', '再见', 'さようなら']],
  ])('tells %s', (kind, messages) => {
    for (const message of messages) expect([message, smallTalkOf(message)?.kind]).toEqual([message, kind]);
  });

  it('a goodbye wins over thanks: "ok thanks, bye" is answered with a short goodbye, asking nothing back', () => {
    expect(smallTalkOf('ok thanks, bye')?.kind).toBe('bye');
    expect(smallTalkOf('merci, au revoir')?.kind).toBe('bye');
    expect(composeLocalAnswer(offline('ok thanks, bye'))).toBe(SMALL_TALK_REPLIES.en.bye);
    expect(composeLocalAnswer(offline('gracias, adiós', 'Spanish'))).toBe(SMALL_TALK_REPLIES.es.bye);
    for (const language of LANGUAGES) expect([language.code, SMALL_TALK_REPLIES[language.code].bye]).not.toEqual([language.code, expect.stringMatching(/[?？؟]/)]);
  });

  it('small talk in another offered language than the reply language is answered in it ("Hola" on an English page)', () => {
    expect(smallTalkOf('Hola')).toEqual({ kind: 'hello', language: 'es' });
    expect(composeLocalAnswer(offline('Hola'))).toBe(SMALL_TALK_REPLIES.es.hello);
    expect(composeLocalAnswer(offline('Buenos días'))).toBe(SMALL_TALK_REPLIES.es.hello);
    expect(composeLocalAnswer(offline('bom dia'))).toBe(SMALL_TALK_REPLIES.pt.hello);
    expect(composeLocalAnswer(offline('danke schön'))).toBe(SMALL_TALK_REPLIES.de.thanks);
    expect(composeLocalAnswer(offline('谢谢'))).toBe(SMALL_TALK_REPLIES.zh.thanks);
    // English small talk, said in every language, is answered in the reply language.
    expect(composeLocalAnswer(offline('hi', 'German'))).toBe(SMALL_TALK_REPLIES.de.hello);
    expect(composeLocalAnswer(offline('ok thanks', 'French'))).toBe(SMALL_TALK_REPLIES.fr.thanks);
  });

  it('a number with small talk is no question ("thanks 9")', () => {
    expect(smallTalkOf('thanks 9')?.kind).toBe('thanks');
    expect(smallTalkOf('9')).toBeUndefined();
  });

  it('leaves questions, and messages with more than small talk in them, to the search', () => {
    for (const message of ['Hi, where is my order?', 'thanks, but my refund has not arrived', 'hello how do I reset my password', 'good', 'ok', 'very much', 'Good morning, I was charged twice', '', '   ', 'hola, ¿cuántos días de vacaciones tengo?', '你好，我的订单在哪里？']) {
      expect([message, smallTalkOf(message)]).toEqual([message, undefined]);
    }
  });

  it('answers in kind, in the visitor\'s language, instead of "not found"', () => {
    expect(composeLocalAnswer(offline('hi'))).toBe(SMALL_TALK_REPLIES.en.hello);
    expect(composeLocalAnswer(offline('Thanks a lot!'))).toBe("You're welcome! Is there anything else I can help you with?");
    expect(composeLocalAnswer(offline('merci beaucoup', 'French'))).toBe('Je vous en prie ! Puis-je vous aider pour autre chose ?');
    expect(composeLocalAnswer(offline('Where is my order?'))).toMatch(/couldn't find anything/);
  });

  it('has its three replies in each of the 11 offered languages, written in that language', () => {
    for (const language of LANGUAGES) {
      const replies = SMALL_TALK_REPLIES[language.code];
      expect(replies).toBeDefined();
      for (const kind of ['hello', 'thanks', 'bye'] as const) {
        expect(composeLocalAnswer(offline(kind === 'hello' ? 'hello' : kind === 'thanks' ? 'thanks' : 'bye', language.name))).toBe(replies[kind]);
        if (['es', 'fr', 'de', 'pt', 'it', 'zh', 'ja', 'ko', 'hi', 'ar'].includes(language.code) && kind === 'hello') expect([language.code, detectLanguage(replies[kind])]).toEqual([language.code, language.code]);
      }
    }
  });
});
