import { analyseQuery, COGNATE_CREDIT, GENERIC_WEIGHT, QUANTITY_WEIGHT, COGNATE_WEIGHT, extractQueryTerms, TRANSLATION_CREDIT, TRANSLATION_WEIGHT, UNTRANSLATED_WEIGHT } from './query-terms';

describe('extractQueryTerms', () => {
  it('drops question words, pronouns and filler, keeping the topic words', () => {
    expect(extractQueryTerms('How do I get my money back?')).toEqual(['money', 'back']);
    expect(extractQueryTerms('Can you please tell me what the refund policy is?')).toEqual(['refund', 'policy']);
    expect(extractQueryTerms('Where is my order')).toEqual(['order']);
  });

  it('drops prepositions and connectives such as "without" and "whether" (they name no topic)', () => {
    expect(extractQueryTerms('I was fired without notice, is that legal?')).toEqual(['fired', 'notice', 'legal']);
    expect(extractQueryTerms('Can I return it without a receipt, whether or not it was opened?')).toEqual(['return', 'receipt', 'opened']);
  });

  it('drops "how long / how much / how many" but keeps "long" elsewhere', () => {
    expect(extractQueryTerms('How long does shipping take?')).toEqual(['shipping']);
    expect(extractQueryTerms('How many vacation days do I have')).toEqual(['vacation', 'days']);
    expect(extractQueryTerms('long-term disability')).toEqual(['long', 'term', 'disability']);
  });

  it('lower-cases and strips punctuation', () => {
    expect(extractQueryTerms('REFUND!!! (urgent) — Order #A1234?')).toEqual(['refund', 'urgent', 'order', 'a1234']);
  });

  it('keeps numbers, including single digits', () => {
    expect(extractQueryTerms('Is there a 30 day return window for step 2?')).toEqual(['30', 'day', 'return', 'window', 'step', '2']);
    expect(extractQueryTerms('401k match')).toEqual(['401k', 'match']);
  });

  it('removes possessives and contractions', () => {
    expect(extractQueryTerms("I can't find my manager's approval")).toEqual(['find', 'manager', 'approval']);
    expect(extractQueryTerms('I don’t understand the company’s policy')).toEqual(['understand', 'company', 'policy']);
  });

  it('de-duplicates, treating simple plurals as the same word', () => {
    expect(extractQueryTerms('refund refunds REFUND policies policy')).toEqual(['refund', 'policies']);
  });

  it('keeps letters of other languages and numbers with diacritics', () => {
    expect(extractQueryTerms('café crème Ürlaub 休暇')).toEqual(['café', 'crème', 'ürlaub', '休暇']);
  });

  it('turns full-text syntax into nothing dangerous and never throws', () => {
    const hostile = [
      '"AND OR NEAR( * ^',
      'title:refund OR text:*',
      'NEAR(refund shipping, 2)',
      "'; DROP TABLE knowledge_items; --",
      'a & b | !c <-> d:*',
      '\\\\ \\" \u0000 \uFFFF',
      '((((((((((',
      '-refund +shipping ^title',
    ];
    for (const query of hostile) {
      const terms = extractQueryTerms(query);
      for (const term of terms) expect(term).toMatch(/^[\p{L}\p{M}\p{N}]+$/u);
    }
    expect(extractQueryTerms('"AND OR NEAR( * ^')).toEqual(['near']);
    expect(extractQueryTerms("'; DROP TABLE knowledge_items; --")).toEqual(['drop', 'table', 'knowledge', 'items']);
  });

  it('returns nothing for questions with no content words', () => {
    for (const query of ['', '   ', '???', 'How do I?', 'what is it', 'Can you help me please?']) {
      expect(extractQueryTerms(query)).toEqual([]);
    }
  });

  it('tolerates non-string input and enormous input', () => {
    expect(extractQueryTerms(undefined as unknown as string)).toEqual([]);
    const huge = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(' ');
    expect(extractQueryTerms(huge).length).toBeLessThanOrEqual(32);
    expect(extractQueryTerms('x'.repeat(100_000))).toEqual([]);
  });
});

describe('analyseQuery', () => {
  it('adds thesaurus words that stand in for the visitor’s wording', () => {
    const { terms, expansions } = analyseQuery('How do I get my money back?');
    expect(terms).toEqual(['money', 'back']);
    expect(expansions).toContainEqual({ term: 'refund', for: ['money', 'back'] });
  });

  it('expands single words in both directions of a synonym group', () => {
    expect(analyseQuery('coupon not working').expansions.map((e) => e.term)).toContain('discount');
    expect(analyseQuery('discount').expansions.map((e) => e.term)).toContain('coupon');
    expect(analyseQuery('maternity').expansions).toContainEqual({ term: 'parental', for: ['maternity'] });
  });

  it('asking for a person finds how to contact the team', () => {
    const words = (q: string) => analyseQuery(q).expansions.map((e) => e.term);
    expect(words('Can I talk to a human?')).toEqual(expect.arrayContaining(['contact', 'support']));
    expect(words('I want to speak to a real person')).toEqual(expect.arrayContaining(['contact', 'support']));
    expect(words('I was fired')).toEqual(expect.arrayContaining(['dismissal', 'termination']));
    expect(words('my card was charged twice')).toEqual(expect.arrayContaining(['duplicate', 'billing']));
  });

  it('matches phrases that include stop words', () => {
    expect(analyseQuery('Can I take some time off next week').expansions).toContainEqual({ term: 'leave', for: ['time'] });
    expect(analyseQuery('my grandmother passed away').expansions.map((e) => e.term)).toContain('bereavement');
  });

  it('never repeats a term the visitor already used', () => {
    const { terms, expansions } = analyseQuery('refund or reimbursement');
    expect(terms).toEqual(['refund', 'reimbursement']);
    expect(expansions.map((e) => e.term)).not.toContain('refund');
    expect(expansions.map((e) => e.term)).not.toContain('reimbursement');
  });

  describe('words that name no topic', () => {
    const weightOf = (query: string, term: string, vertical?: string) => {
      const analysed = analyseQuery(query, vertical);
      return analysed.weights?.[analysed.terms.indexOf(term)];
    };

    it('a length of time weighs like a generic word: "it\'s been 6 weeks" says when, not what', () => {
      const analysed = analyseQuery("I want to return my headphones, it's been 6 weeks");
      expect(analysed.terms).toEqual(['return', 'headphones', '6', 'weeks']);
      expect(analysed.weights).toEqual([1, 1, QUANTITY_WEIGHT, QUANTITY_WEIGHT]);
      expect(analysed.topic).toBe(true);
      // Weeks without a number, or a number without a unit, weigh as any other word.
      expect(weightOf('How many weeks of parental leave do I get?', 'weeks')).toBe(1);
      expect(weightOf('Does zlib have problems with the year 2000?', '2000')).toBe(1);
    });

    it('a question of numbers and generic words alone names no topic ("thanks 9", "policy 2")', () => {
      expect(analyseQuery('thanks 9')).toMatchObject({ terms: ['9'], topic: false });
      expect(analyseQuery('policy 2').topic).toBe(false);
      expect(analyseQuery('order 9').topic).toBe(true);
      expect(analyseQuery('401k match').topic).toBe(true);
    });

    it('in Legal, "legal", "law" and "allowed" frame the question rather than name its topic', () => {
      expect(weightOf('I was fired without notice, is that legal?', 'legal', 'legal')).toBe(GENERIC_WEIGHT);
      expect(weightOf('Is my landlord allowed to enter without notice?', 'allowed', 'legal')).toBe(GENERIC_WEIGHT);
      expect(weightOf('I was fired without notice, is that legal?', 'fired', 'legal')).toBe(1);
      // Elsewhere "legal" can be the topic (a legal name, legal documents).
      expect(weightOf('How do I change my legal name?', 'legal', 'hr')).toBe(1);
      expect(analyseQuery('Is that legal?', 'legal').topic).toBe(false);
    });

    it('"how long" and its verb in other languages name no topic, as in English', () => {
      expect(analyseQuery('Wie lange gilt die Garantie?').terms).toEqual(['garantie']);
      expect(analyseQuery('Wie lange dauert die Rückerstattung?').terms).toEqual(['rückerstattung']);
      expect(analyseQuery('¿Cuánto tiempo tarda el reembolso?').terms).toEqual(['reembolso']);
      expect(analyseQuery('Combien de temps dure la garantie ?').terms).toEqual(['garantie']);
      expect(analyseQuery('Quanto tempo demora o reembolso?').terms).toEqual(['reembolso']);
      expect(analyseQuery('Quanto tempo dura la garanzia?').terms).toEqual(['garanzia']);
      const ar = analyseQuery('كم تستغرق عملية الاسترداد؟');
      expect(ar.terms).toEqual(['عملية', 'الاسترداد']);
      // "عملية" is "process", a generic word in English too.
      expect(ar.weights).toEqual([GENERIC_WEIGHT, 1]);
      expect(ar.expansions.filter((e) => e.translation).map((e) => e.term)).toContain('refund');
    });
  });

  it('adds nothing when there are no content terms', () => {
    expect(analyseQuery('how do I?')).toEqual({ terms: [], expansions: [] });
  });

  describe('a question in another Latin-script language', () => {
    it('drops that language\'s question words and fillers as it drops English stop words', () => {
      expect(extractQueryTerms('¿Cómo recorro una lista en orden inverso?')).toEqual(['recorro', 'lista', 'orden', 'inverso']);
      expect(extractQueryTerms('Wie kann ich eine Liste nach den Werten sortieren?')).toEqual(['liste', 'werten', 'sortieren']);
      expect(extractQueryTerms('Comment copier un fichier en Python ?')).toEqual(['copier', 'fichier', 'python']);
      // English is untouched ("come" is an Italian filler, not an English one).
      expect(extractQueryTerms('When will my parcel come?')).toEqual(['parcel', 'come']);
    });

    it('also searches its words cut short, as cognates of English words, at reduced weight', () => {
      const { expansions } = analyseQuery('Wie kann ich eine Liste sortieren?');
      expect(expansions).toContainEqual({ term: 'sortie', for: ['sortieren'], weight: COGNATE_WEIGHT, credit: COGNATE_CREDIT });
      expect(analyseQuery('Verletzt zlib die Patente von anderen?').expansions.map((e) => e.term)).toContain('patent');
      // Diacritics off: "documentação" meets "documentation".
      expect(analyseQuery('Como gerar documentação?').expansions.map((e) => e.term)).toContain('documentacao');
      expect(analyseQuery('Como gerar documentação?').expansions.map((e) => e.term)).toContain('document');
      // Never for English; a word the lexicon translates is searched as its translation, not also as a cut.
      expect(analyseQuery('How do I sort a list of documents?').expansions.some((e) => e.weight !== undefined)).toBe(false);
      expect(expansions.filter((e) => e.term === 'list')).toEqual([{ term: 'list', for: ['liste'], weight: TRANSLATION_WEIGHT, credit: TRANSLATION_CREDIT, translation: true }]);
    });

    it('searches the English of its words (bilingual lexicon), phrases included, and drops words whose English is a stop word', () => {
      const fr = analyseQuery('Comment réinitialiser mon mot de passe ?');
      expect(fr.terms).toEqual(['réinitialiser', 'mot', 'passe']);
      expect(fr.expansions).toContainEqual({ term: 'reset', for: ['réinitialiser'], weight: TRANSLATION_WEIGHT, credit: TRANSLATION_CREDIT, translation: true });
      expect(fr.expansions).toContainEqual({ term: 'password', for: ['mot', 'passe'], weight: TRANSLATION_WEIGHT, credit: TRANSLATION_CREDIT, translation: true });
      // "obtener" is "get": no topic.
      const es = analyseQuery('¿Cómo puedo obtener un reembolso de mi pedido?');
      expect(es.terms).toEqual(['reembolso', 'pedido']);
      expect(es.expansions.filter((e) => e.translation).map((e) => e.term)).toEqual(['refund', 'order']);
    });
  });

  describe('a question in a language of another script', () => {
    it('Chinese and Japanese are cut into words; each word is searched through its English', () => {
      const zh = analyseQuery('如何在 Python 中生成随机数？');
      expect(zh.terms).toEqual(['python', '生成', '随机数']);
      expect(zh.expansions.filter((e) => e.translation).map((e) => [e.term, e.for])).toEqual([
        ['generate', ['生成']],
        ['random', ['随机数']],
        ['number', ['随机数']],
      ]);
      const ja = analyseQuery('コミットを取り消すにはどうすればいいですか？');
      expect(ja.terms).toEqual(['コミット', '取り消す']);
      expect(ja.expansions.map((e) => e.term)).toEqual(expect.arrayContaining(['commit', 'undo', 'revert']));
    });

    it("a word with no English found weighs less (the lexicon's gap, not a topic the knowledge lacks)", () => {
      const ar = analyseQuery('كيف أحفظ الملف في المجلد الغامض؟');
      const unknown = ar.terms.indexOf('الغامض');
      expect(unknown).toBeGreaterThanOrEqual(0);
      expect(ar.weights?.[unknown]).toBe(UNTRANSLATED_WEIGHT);
      expect(ar.weights?.[ar.terms.indexOf('الملف')]).toBe(1);
      expect(ar.expansions.map((e) => e.term)).toEqual(expect.arrayContaining(['file', 'folder', 'directory']));
    });
  });
});
