import { matchKey, translateQuestion } from './translate';

const english = (query: string, lang: Parameters<typeof translateQuestion>[1], words: string[]) =>
  Object.fromEntries(translateQuestion(query, lang, words).translations.map((t) => [t.word, t.english]));

describe('translateQuestion (offline, word by word)', () => {
  it('meets inflected forms through each language\'s stemmer on both sides', () => {
    expect(english('Comment supprimer les fichiers ?', 'fr', ['supprimer', 'fichiers'])).toEqual({ supprimer: ['delete', 'remove'], fichiers: ['file'] });
    expect(english('¿Dónde están las carpetas?', 'es', ['carpetas'])).toEqual({ carpetas: ['folder', 'directory'] });
    expect(english('Come posso installare la libreria?', 'it', ['installare', 'libreria'])).toEqual({ installare: ['install'], libreria: ['library'] });
    expect(english('Como atualizar o pacote?', 'pt', ['atualizar', 'pacote'])).toEqual({ atualizar: ['update', 'upgrade'], pacote: ['package'] });
  });

  it('a short plural the stemmer leaves as it is meets its singular ("días": "día")', () => {
    expect(english('¿Cuántos días?', 'es', ['días'])).toEqual({ días: ['day'] });
    expect(english('Quantos dias?', 'pt', ['dias'])).toEqual({ dias: ['day'] });
  });

  it('German compounds by their parts', () => {
    expect(english('Passwortänderung', 'de', ['passwortänderung'])).toEqual({ passwortänderung: ['password', 'change', 'modify'] });
  });

  it('phrases cover all their content words, named by the first', () => {
    const t = translateQuestion('mot de passe oublié', 'fr', ['mot', 'passe', 'oublié']).translations;
    expect(t[0]).toEqual({ word: 'mot', alsoCovers: ['passe'], english: ['password'], source: 'lexicon' });
  });

  it('Korean words are looked up by their longest known beginning (particles follow the stem)', () => {
    expect(english('파일을 삭제하려면', 'ko', ['파일을', '삭제하려면'])).toEqual({ 파일을: ['file'], 삭제하려면: ['delete', 'remove'] });
  });

  it('Arabic and Hindi: normalised letters and endings', () => {
    expect(matchKey('ar', 'الملفات')).toBe(matchKey('ar', 'ملف'));
    expect(english('كيف أحذف الملفات؟', 'ar', ['أحذف', 'الملفات']).الملفات).toEqual(['file']);
    expect(english('फ़ाइलें कैसे हटाएं', 'hi', ['फ़ाइलें', 'हटाएं'])).toMatchObject({ फ़ाइलें: ['file'] });
  });

  it('Chinese through CC-CEDICT when the lexicon does not know a word, Japanese kanji through their traditional form', () => {
    const zh = translateQuestion('如何计算平均值？', 'zh', []);
    expect(zh.words).toContain('平均值');
    expect(zh.translations.find((t) => t.word === '平均值')).toMatchObject({ source: 'cedict' });
    expect(zh.translations.find((t) => t.word === '平均值')?.english).toContain('average');
    // 処理 is 處理 in CC-CEDICT.
    const ja = translateQuestion('例外処理', 'ja', []);
    expect(ja.translations.find((t) => t.word === '処理')?.english).toEqual(expect.arrayContaining(['handle']));
  });

  it('leaves out question words and grammar', () => {
    expect(translateQuestion('为什么我的程序运行得很慢？', 'zh', []).words).toEqual(['程序', '运行', '慢']);
    expect(translateQuestion('ファイルを削除する方法はありますか', 'ja', []).words).toEqual(['ファイル', '削除']);
  });
});
