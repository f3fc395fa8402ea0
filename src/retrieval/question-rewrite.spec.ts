import { rewriteLanguageOf } from './question-rewrite';

describe('rewriteLanguageOf: which questions are rewritten into English before the search', () => {
  it('an English question never is, whatever reply language the visitor chose', () => {
    expect(rewriteLanguageOf('How do I get a refund for my order?', 'es')).toBeUndefined();
    expect(rewriteLanguageOf('How do I get a refund for my order?', 'en')).toBeUndefined();
  });

  it('a question in another language is, named by its detected language', () => {
    expect(rewriteLanguageOf('¿Cómo puedo obtener un reembolso de mi pedido?', 'es')).toBe('es');
    expect(rewriteLanguageOf('Comment réinitialiser mon mot de passe ?', 'fr')).toBe('fr');
    expect(rewriteLanguageOf('如何重置我的密码？', 'en')).toBe('zh');
  });

  it('a weak Latin-script guess is not trusted when the visitor chose English ("an" is German too)', () => {
    expect(rewriteLanguageOf('What should an employment contract include? (chat an-1-x8d9a)', 'en')).toBeUndefined();
  });

  it('a question the detector cannot place counts as the visitor\'s chosen language', () => {
    expect(rewriteLanguageOf('reembolso pedido', 'es')).toBe('es');
    expect(rewriteLanguageOf('refund order', 'en')).toBeUndefined();
  });
});
