import { detectLanguage } from './language';
import { surelyWrittenIn } from '../shared/language-detection';

describe('detectLanguage', () => {
  it.each([
    ['en', 'How do I reset my password if I no longer have access to the email on my account?'],
    ['es', '¿Cómo puedo obtener un reembolso de mi pedido?'],
    ['fr', 'Comment réinitialiser mon mot de passe ?'],
    ['de', 'Wie kann ich meine Bestellung stornieren, wenn sie schon verschickt ist?'],
    ['pt', 'Como faço para trocar o endereço de entrega do meu pedido?'],
    ['it', 'Come posso cambiare la password del mio account?'],
    // Short questions whose shortlist words are shared ("de"): their filler words tell.
    ['pt', 'Quantos dias de férias eu tenho?'],
    ['es', '¿Cuántos días de vacaciones tengo?'],
    ['it', 'Quanti giorni di ferie ho?'],
    ['fr', 'Combien de jours de congés ai-je ?'],
    ['de', 'Wie viele Urlaubstage habe ich?'],
    ['en', 'How many vacation days do I get?'],
    ['zh', '如何在 Python 中生成随机数？'],
    ['ja', 'Python はメモリをどのように管理していますか？'],
    ['ko', 'git에서 계정마다 다른 SSH 키를 사용하려면 어떻게 하나요?'],
    ['hi', 'मैं git में सहेजा हुआ पासवर्ड कैसे बदलूँ?'],
    ['ar', 'كيف أرسل بريدًا إلكترونيًا من برنامج بايثون؟'],
  ])('tells %s', (code, text) => {
    expect(detectLanguage(text)).toBe(code);
  });

  it('says nothing when it cannot tell', () => {
    expect(detectLanguage('')).toBeUndefined();
    expect(detectLanguage('12345 !!!')).toBeUndefined();
    expect(detectLanguage('zlib')).toBeUndefined();
  });
});

describe('surelyWrittenIn (switching the reply language for the visitor)', () => {
  it.each([
    ['es', '¿Cuántos días de vacaciones tengo?'],
    ['fr', 'Comment réinitialiser mon mot de passe ?'],
    ['pt', 'Quantos dias de férias eu tenho?'],
    ['zh', '如何重置密码？'],
    ['en', 'How many vacation days do I get?'],
  ])('tells %s', (code, text) => {
    expect(surelyWrittenIn(text)).toBe(code);
  });

  it('counts no letter of a code or an id ("an-3-xq7de", "A12B-E3") as a word', () => {
    expect(surelyWrittenIn('How long does shipping take? (chat an-4-a1e2o3) [mock:tokens=7]')).toBe('en');
    expect(surelyWrittenIn('Where is order A1-E2-O3-A4?')).toBe('en');
    // "an" is German too: English questions have more English words.
    expect(surelyWrittenIn('What should an employment contract include? (chat an-2-abc123) [mock:tokens=7]')).toBe('en');
    expect(surelyWrittenIn('I need an invoice for an order')).toBe('en');
  });

  it.each(['Can I return a sofa?', 'Can I expense a taxi?', 'Can I bring a guest?', 'I have a question about a parcel', 'My employer gave me no notice before firing me'])(
    'takes the English "I", "a", "me" and "no" for English, not for Italian or Spanish words: %s',
    (text) => {
      expect(surelyWrittenIn(text)).toBe('en');
      expect(detectLanguage(text)).toBe('en');
    },
  );

  it('still tells a short Italian or Portuguese question by its own words', () => {
    expect(surelyWrittenIn('Posso avere un rimborso?')).toBe('it');
    expect(surelyWrittenIn('Posso ter um reembolso?')).toBe('pt');
    expect(surelyWrittenIn('Ho ricevuto i pantaloni sbagliati')).toBe('it');
  });

  it('switches nothing on a word or two that several languages share, or on none', () => {
    for (const text of ['no', 'ciao', 'come on', 'ok', 'refund', 'Python', 'no thanks', 'a la carte']) expect([text, surelyWrittenIn(text)]).toEqual([text, undefined]);
  });
});
