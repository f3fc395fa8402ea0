/**
 * SQLite search: BM25 exactly as FTS5's bm25() computed it (title column weighted TITLE_WEIGHT,
 * IDF ln((N - df + 0.5) / (df + 0.5)) floored at 1e-6, N, df and the average length over all
 * chunks) but over the inverted index `knowledge_postings` (see bm25.ts), scored in process.
 *
 * The triggers of migration 1732190600000 tokenize each chunk with FTS5 itself (a contentless
 * `porter unicode61 remove_diacritics 2` table read back through fts5vocab), so the index holds
 * FTS5's porter stems. Query words are stemmed here by fts5Tokens(), a port of that tokenizer and
 * stemmer, checked against FTS5 by the spec. Visitor input only ever becomes bound parameters.
 */
import type { DataSource } from 'typeorm';
import { extractQueryTerms } from '../retrieval/query-terms';
import { ChunkFetch, ChunkFetchRow, chunkFetchOf, IndexRead, IndexReadRow, indexReadOf, StemmedQuery } from './bm25';
import { PostingsSearchIndex } from './postings-search-index';
import { readQuery } from '../database/sql';
import type { KnowledgeSearchIndex, ScoredChunk, ScoredSearch, SearchOptions, WeightedTerm } from './search-index';
/** Chunk ids per IN list of the final fetch. */
const MAX_IN_LIST = 500;

export class SqliteSearchIndex extends PostingsSearchIndex implements KnowledgeSearchIndex {
  constructor(dataSource: DataSource) {
    // FTS5's bm25(): statistics over all chunks, whatever the vertical searched.
    super(dataSource, { formula: 'fts5', scopedStatistics: false, avgdlFloor: 0 });
  }

  async search(query: string | WeightedTerm[], options: SearchOptions): Promise<ScoredChunk[]> {
    const words = typeof query === 'string' ? extractQueryTerms(query).map((text) => ({ text, weight: 1 })) : query;
    return (await this.searchScored(words, options)).chunks;
  }

  async searchScored(words: WeightedTerm[], options: SearchOptions): Promise<ScoredSearch> {
    const stemmed = stemQuery(words);
    if (stemmed.terms.length === 0) return { chunks: [], wordIdf: words.map(() => 0) };
    return this.searchStemmed(this.reader, stemmed, options);
  }

  protected stemWords(words: string[]): Promise<string[][]> {
    return Promise.resolve(words.map((word) => fts5Tokens(word)));
  }

  /** Statistics, each term's rows concatenated (bm25.ts), chunk records. */
  protected async read(terms: string[], blocks: number[]): Promise<IndexRead> {
    // Terms are bound (at most 48 words make a query); block numbers are integers, inlined.
    const termList = terms;
    const blockList = blocks.filter(Number.isSafeInteger);
    let sql = 'SELECT 0 AS kind, vertical AS name, code AS n, chunks, tokens, version, NULL AS data FROM knowledge_search_stats';
    if (termList.length > 0) {
      // Rows carry their block header, so their order does not matter (no sort in the aggregate).
      sql += ` UNION ALL
        SELECT 1, term, NULL, NULL, NULL, NULL, CAST(group_concat(data, '') AS BLOB)
          FROM knowledge_postings WHERE term IN (${termList.map(() => '?').join(', ')}) GROUP BY term`;
    }
    if (blockList.length > 0) {
      sql += ` UNION ALL SELECT 2, NULL, block, NULL, NULL, NULL, data FROM knowledge_search_chunks WHERE block IN (${blockList.join(', ')})`;
    }
    const rows: IndexReadRow[] = await readQuery(this.dataSource, sql, termList);
    return indexReadOf(rows, (data) => (Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'latin1')));
  }

  /** The rows of `ids` and, in the statement that reads the last of them, the statistics. */
  protected async chunks(ids: number[], withText: boolean): Promise<ChunkFetch> {
    const list = ids.filter(Number.isSafeInteger);
    const rows: ChunkFetchRow[] = [];
    for (let i = 0; i < list.length; i += MAX_IN_LIST) {
      const slice = list.slice(i, i + MAX_IN_LIST);
      const last = i + MAX_IN_LIST >= list.length;
      rows.push(...(await readQuery<ChunkFetchRow[]>(this.dataSource, `${last ? `${STATS_ROWS} UNION ALL ` : ''}${chunkRows(slice, withText)}`)));
    }
    if (list.length === 0) rows.push(...(await readQuery<ChunkFetchRow[]>(this.dataSource, STATS_ROWS)));
    return chunkFetchOf(rows);
  }
}

/** ChunkFetchRow: the statistics of each vertical. */
const STATS_ROWS = `SELECT 0 AS kind, vertical, code, chunks, tokens, version,
  NULL AS chunkId, NULL AS itemId, NULL AS ord, NULL AS title, NULL AS text FROM knowledge_search_stats`;

/** ChunkFetchRow: the chunks with these ids (integers, inlined). */
function chunkRows(ids: number[], withText: boolean): string {
  // Named here too: a statement without STATS_ROWS ahead takes its column names from this SELECT.
  return `SELECT 1 AS kind, NULL AS vertical, NULL AS code, NULL AS chunks, NULL AS tokens, NULL AS version,
    id AS chunkId, item_id AS itemId, ord, title, ${withText ? 'text' : "''"} AS text FROM knowledge_chunks WHERE id IN (${ids.join(', ')})`;
}

/**
 * The query's words as FTS5 would index them. Like the MATCH expression the index used to run
 * (every word a quoted phrase, OR'ed), each word counts on its own: a stem given by two words (or
 * by a word and a related word) adds both their weights. A word the tokenizer splits in several
 * tokens (possible only outside ASCII) matches each token separately (FTS5 would have asked for
 * the tokens as an adjacent phrase; the index keeps no positions).
 */
function stemQuery(words: WeightedTerm[]): StemmedQuery {
  const byTerm = new Map<string, { term: string; weight: number; words: number[] }>();
  words.forEach((word, i) => {
    if (!(word.weight > 0)) return;
    for (const term of fts5Tokens(word.text)) {
      let entry = byTerm.get(term);
      if (!entry) {
        entry = { term, weight: 0, words: [] };
        byTerm.set(term, entry);
      }
      entry.weight += word.weight;
      if (!entry.words.includes(i)) entry.words.push(i);
    }
  });
  return { words: words.map((w) => w.text), terms: [...byTerm.values()] };
}

// ------------------------------------------------------------------------------------------------
// FTS5's `porter unicode61 remove_diacritics 2` tokenizer (sqlite3.c 3.44, fts5_tokenize.c).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The tokens FTS5 makes of `text`: runs of letters, digits and private-use characters, folded to
 * lower case without diacritics, each porter-stemmed. Exact for ASCII; outside ASCII, Unicode
 * case folding and NFD mark removal stand in for SQLite's own tables (they agree on the Latin,
 * Greek and Cyrillic letters the spec checks).
 */
export function fts5Tokens(text: string): string[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  // eslint-disable-next-line no-control-regex
  const folded = /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC');
  const tokens = folded.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
  return tokens.map((token) => decoder.decode(porterStem(encoder.encode(token))));
}

const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const Y = 121;

function isVowel(c: number, yIsVowel: boolean): boolean {
  return c === A || c === E || c === I || c === O || c === U || (yIsVowel && c === Y);
}

/** fts5PorterGobbleVC: skips a run of consonants then of vowels; returns the index after the next consonant, or 0. */
function gobbleVC(z: Uint8Array, start: number, n: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = 0;
  for (; i < n; i++) {
    consonant = !isVowel(z[start + i], consonant);
    if (!consonant) break;
  }
  for (i++; i < n; i++) {
    consonant = !isVowel(z[start + i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** m > 0 */
function mGt0(z: Uint8Array, n: number): boolean {
  return gobbleVC(z, 0, n, false) !== 0;
}
/** m > 1 */
function mGt1(z: Uint8Array, n: number): boolean {
  const k = gobbleVC(z, 0, n, false);
  return k !== 0 && gobbleVC(z, k, n - k, true) !== 0;
}
/** m = 1 */
function mEq1(z: Uint8Array, n: number): boolean {
  const k = gobbleVC(z, 0, n, false);
  return k !== 0 && gobbleVC(z, k, n - k, true) === 0;
}
/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
function oStar(z: Uint8Array, n: number): boolean {
  const last = z[n - 1];
  if (last === 119 || last === 120 || last === Y) return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(z[i], consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}
/** m > 1 and (*S or *T) */
function mGt1SorT(z: Uint8Array, n: number): boolean {
  return (z[n - 1] === 115 || z[n - 1] === 116) && mGt1(z, n);
}
/** *v*: contains a vowel. */
function hasVowel(z: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(z[i], i > 0)) return true;
  return false;
}

/** The generated rules require the word to be strictly longer than the suffix. */
function endsWith(z: Uint8Array, n: number, suffix: string): boolean {
  if (n <= suffix.length) return false;
  for (let i = 0; i < suffix.length; i++) if (z[n - suffix.length + i] !== suffix.charCodeAt(i)) return false;
  return true;
}

type Rule = readonly [suffix: string, condition: (z: Uint8Array, n: number) => boolean, replacement: string];

/** Rules grouped by the word's second-to-last byte; within a group the first matching suffix decides. */
function applyRules(z: Uint8Array, n: number, rules: Readonly<Record<string, readonly Rule[]>>): number {
  const group = n >= 2 ? rules[String.fromCharCode(z[n - 2])] : undefined;
  if (!group) return n;
  for (const [suffix, condition, replacement] of group) {
    if (!endsWith(z, n, suffix)) continue;
    const stem = n - suffix.length;
    if (!condition(z, stem)) return n;
    for (let i = 0; i < replacement.length; i++) z[stem + i] = replacement.charCodeAt(i);
    return stem + replacement.length;
  }
  return n;
}

const STEP2: Readonly<Record<string, readonly Rule[]>> = {
  a: [['ational', mGt0, 'ate'], ['tional', mGt0, 'tion']],
  c: [['enci', mGt0, 'ence'], ['anci', mGt0, 'ance']],
  e: [['izer', mGt0, 'ize']],
  g: [['logi', mGt0, 'log']],
  l: [['bli', mGt0, 'ble'], ['alli', mGt0, 'al'], ['entli', mGt0, 'ent'], ['eli', mGt0, 'e'], ['ousli', mGt0, 'ous']],
  o: [['ization', mGt0, 'ize'], ['ation', mGt0, 'ate'], ['ator', mGt0, 'ate']],
  s: [['alism', mGt0, 'al'], ['iveness', mGt0, 'ive'], ['fulness', mGt0, 'ful'], ['ousness', mGt0, 'ous']],
  t: [['aliti', mGt0, 'al'], ['iviti', mGt0, 'ive'], ['biliti', mGt0, 'ble']],
};
const STEP3: Readonly<Record<string, readonly Rule[]>> = {
  a: [['ical', mGt0, 'ic']],
  s: [['ness', mGt0, '']],
  t: [['icate', mGt0, 'ic'], ['iciti', mGt0, 'ic']],
  u: [['ful', mGt0, '']],
  v: [['ative', mGt0, '']],
  z: [['alize', mGt0, 'al']],
};
const STEP4: Readonly<Record<string, readonly Rule[]>> = {
  a: [['al', mGt1, '']],
  c: [['ance', mGt1, ''], ['ence', mGt1, '']],
  e: [['er', mGt1, '']],
  i: [['ic', mGt1, '']],
  l: [['able', mGt1, ''], ['ible', mGt1, '']],
  n: [['ant', mGt1, ''], ['ement', mGt1, ''], ['ment', mGt1, ''], ['ent', mGt1, '']],
  o: [['ion', mGt1SorT, ''], ['ou', mGt1, '']],
  s: [['ism', mGt1, '']],
  t: [['ate', mGt1, ''], ['iti', mGt1, '']],
  u: [['ous', mGt1, '']],
  v: [['ive', mGt1, '']],
  z: [['ize', mGt1, '']],
};

/** fts5PorterCb: the porter stem of a token (UTF-8 bytes); tokens under 3 or over 64 bytes pass through. */
function porterStem(token: Uint8Array): Uint8Array {
  if (token.length > 64 || token.length < 3) return token;
  const z = new Uint8Array(token.length + 8);
  z.set(token);
  let n = token.length;

  // Step 1A.
  if (z[n - 1] === 115) {
    if (z[n - 2] === E) {
      if ((n > 4 && z[n - 4] === 115 && z[n - 3] === 115) || (n > 3 && z[n - 3] === I)) n -= 2;
      else n -= 1;
    } else if (z[n - 2] !== 115) {
      n -= 1;
    }
  }

  // Step 1B.
  let removedEdIng = false;
  if (n >= 2 && z[n - 2] === E) {
    if (endsWith(z, n, 'eed')) {
      if (mGt0(z, n - 3)) n -= 1;
    } else if (endsWith(z, n, 'ed') && hasVowel(z, n - 2)) {
      n -= 2;
      removedEdIng = true;
    }
  } else if (n >= 2 && z[n - 2] === 110) {
    if (endsWith(z, n, 'ing') && hasVowel(z, n - 3)) {
      n -= 3;
      removedEdIng = true;
    }
  }
  if (removedEdIng) {
    const before = n >= 2 ? z[n - 2] : -1;
    if ((before === A && endsWith(z, n, 'at')) || (before === 98 && endsWith(z, n, 'bl')) || (before === I && endsWith(z, n, 'iz'))) {
      z[n++] = E;
    } else {
      const c = z[n - 1];
      if (!isVowel(c, false) && c !== 108 && c !== 115 && c !== 122 && n >= 2 && c === z[n - 2]) n -= 1;
      else if (mEq1(z, n) && oStar(z, n)) z[n++] = E;
    }
  }

  // Step 1C.
  if (z[n - 1] === Y && hasVowel(z, n - 1)) z[n - 1] = I;

  // Steps 2 to 4.
  n = applyRules(z, n, STEP2);
  n = applyRules(z, n, STEP3);
  n = applyRules(z, n, STEP4);

  // Step 5a.
  if (z[n - 1] === E && (mGt1(z, n - 1) || (mEq1(z, n - 1) && !oStar(z, n - 1)))) n -= 1;

  // Step 5b.
  if (n > 1 && z[n - 1] === 108 && z[n - 2] === 108 && mGt1(z, n - 1)) n -= 1;

  return z.slice(0, n);
}
