/**
 * fts5Tokens() must stem query words exactly as FTS5's `porter unicode61 remove_diacritics 2`
 * tokenizer stems the indexed text (the SQLite search index holds FTS5's tokens): checked word by
 * word against FTS5 itself.
 */
import * as sqlite3 from 'sqlite3';
import { FAQ_ITEMS, FAQ_QUESTIONS } from '../../test/fixtures/faq-corpus';
import { SAMPLE_KNOWLEDGE } from './sample-knowledge';
import { fts5Tokens } from '../retrieval/fts5-tokenizer';

/** Suffixes that exercise every porter step. */
const SUFFIXES = [
  '', 's', 'es', 'ies', 'sses', 'ed', 'eed', 'ing', 'ings', 'er', 'ers', 'ly', 'y', 'e', 'll', 'ness', 'ment', 'ement', 'ent', 'ant',
  'ation', 'ational', 'tional', 'ization', 'izer', 'ize', 'alize', 'alism', 'aliti', 'iviti', 'biliti', 'ability', 'ible', 'able',
  'ous', 'ousli', 'ousness', 'ive', 'iveness', 'ful', 'fulness', 'ism', 'al', 'ance', 'ence', 'enci', 'anci', 'ic', 'ical', 'icate',
  'iciti', 'ative', 'ator', 'logi', 'bli', 'alli', 'entli', 'eli', 'ion', 'sion', 'tion', 'ate', 'iti', 'at', 'bl', 'iz',
];

const EXTRA_WORDS = [
  'a', 'at', 'ate', 'aed', 'aing', 'bed', 'sing', 'hopping', 'hoping', 'filing', 'failing', 'fizzed', 'controlling', 'rolling',
  'generalizations', 'oscillators', 'agreed', 'feed', 'plastered', 'bled', 'motoring', 'conflated', 'troubled', 'sized',
  'tanned', 'falling', 'hissing', 'fizzing', 'failing', 'filing', 'happy', 'sky', 'relational', 'conditional', 'rational',
  'valenci', 'hesitanci', 'digitizer', 'conformabli', 'radicalli', 'differentli', 'vileli', 'analogousli', 'vietnamization',
  'predication', 'operator', 'feudalism', 'decisiveness', 'hopefulness', 'callousness', 'formaliti', 'sensitiviti',
  'sensibiliti', 'triplicate', 'formative', 'formalize', 'electriciti', 'electrical', 'hopeful', 'goodness', 'revival',
  'allowance', 'inference', 'airliner', 'gyroscopic', 'adjustable', 'defensible', 'irritant', 'replacement', 'adjustment',
  'dependent', 'adoption', 'homologou', 'communism', 'activate', 'angulariti', 'homologous', 'effective', 'bowdlerize',
  'probate', 'rate', 'cease', 'controll', 'roll', 'sku10037', 'err40211', '401k', 'wfh', 'pto', 'x', 'xx', 'xxx',
  'café', 'naïve', 'résumé', 'façade', 'über', 'straße', 'ångström', 'smörgåsbord', 'ærøskøbing', 'crème', 'brûlée',
  'jalapeño', 'zürich', 'piñata', 'élève', 'déjà', 'mañana', 'ΑΘΗΝΑ', 'москва', 'Ölçü', 'ÉCOLE', 'İstanbul',
  'spaß', 'ﬁnance', 'ǅemal', '休暇', '東京タワー', 'naïvely', 'cafés', 'résumés', 'élèves',
];

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

describe('fts5Tokens (SQLite query stemming)', () => {
  let db: sqlite3.Database;
  const run = (sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> =>
    new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as Record<string, unknown>[]))));

  beforeAll(async () => {
    db = new sqlite3.Database(':memory:');
    await run(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')`);
    await run(`CREATE VIRTUAL TABLE t_tokens USING fts5vocab(t, 'instance')`);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  });

  it('gives the tokens FTS5 indexes, for every word of the knowledge fixtures and their inflections', async () => {
    const words = new Set<string>(EXTRA_WORDS);
    const texts = [
      ...FAQ_ITEMS.flatMap((item) => [item.title, item.content]),
      ...FAQ_QUESTIONS.map((q) => q.question),
      ...SAMPLE_KNOWLEDGE.flatMap((item) => [item.title, item.content]),
    ];
    for (const text of texts) {
      for (const word of wordsOf(text)) {
        words.add(word);
        if (/^[a-z]+$/.test(word)) {
          for (const suffix of SUFFIXES) words.add(word + suffix);
          if (word.length > 4) for (const suffix of SUFFIXES) words.add(word.slice(0, -1) + suffix);
        }
      }
    }
    const list = [...words];
    expect(list.length).toBeGreaterThan(5000);

    await run('BEGIN');
    for (let i = 0; i < list.length; i += 400) {
      const slice = list.slice(i, i + 400);
      await run(`INSERT INTO t (rowid, x) VALUES ${slice.map(() => '(?, ?)').join(', ')}`, slice.flatMap((word, j) => [i + j + 1, word]));
    }
    await run('COMMIT');
    const byDoc = new Map<number, string[]>();
    for (const row of await run('SELECT doc, term FROM t_tokens ORDER BY doc, offset')) {
      const doc = Number(row.doc);
      byDoc.set(doc, [...(byDoc.get(doc) ?? []), String(row.term)]);
    }
    const mismatches = list
      .map((word, i) => ({ word, fts5: byDoc.get(i + 1) ?? [], ours: fts5Tokens(word) }))
      .filter((m) => m.fts5.join(' ') !== m.ours.join(' '));
    expect(mismatches).toEqual([]);
  });

  it('makes nothing of empty or separator-only input', () => {
    expect(fts5Tokens('')).toEqual([]);
    expect(fts5Tokens('  -- ** "" ')).toEqual([]);
    expect(fts5Tokens('Refunds, REFUNDED!')).toEqual(['refund', 'refund']);
  });
});
